import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OptionalIdpId } from '../../user-teams/dto/identifiers';

export class UserAccessQuery {
  @OptionalIdpId()
  idp_id?: string;
}

export class UserAccessResponse {
  @ApiProperty()
  user_id: string;

  @ApiProperty({ description: 'The IdP of the user' })
  idp_id: string;

  @ApiProperty({ description: 'true while the user is disabled: its tokens are refused with `401 USER_DISABLED`' })
  disabled: boolean;

  @ApiPropertyOptional({ description: 'Sessions (refresh-token families) this call revoked (disable only)' })
  revoked_sessions?: number;
}
