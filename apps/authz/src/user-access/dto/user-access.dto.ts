import { OptionalIdpId } from '../../user-teams/dto/identifiers';

export class UserAccessQuery {
  @OptionalIdpId()
  idp_id?: string;
}

export class UserAccessResponse {
  user_id: string;

  /** The IdP of the user */
  idp_id: string;

  /** true while the user is disabled: its tokens are refused with `401 USER_DISABLED` */
  disabled: boolean;

  /** Sessions (refresh-token families) this call revoked (disable only) */
  revoked_sessions?: number;
}
