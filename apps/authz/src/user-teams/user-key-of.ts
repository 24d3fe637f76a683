import type { Principal } from '@lib/auth';
import type { UserKey } from '../identity/user-key';

/** The IdP of the users a request names: its `idp_id`, or the caller's own IdP when omitted. */
export const idpIdOf = (principal: Pick<Principal, 'idpId'>, request: { idp_id?: string }): string => request.idp_id ?? principal.idpId;

/** The user a request names: its `user_id`, of the IdP `idpIdOf` gives. */
export const userKeyOf = (principal: Pick<Principal, 'idpId'>, request: { user_id: string; idp_id?: string }): UserKey => ({
  userId: request.user_id,
  idpId: idpIdOf(principal, request),
});
