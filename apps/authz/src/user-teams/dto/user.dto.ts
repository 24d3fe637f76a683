import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';
import { IsIdentifier, MAX_USER_ID_LENGTH, OptionalIdpId } from './identifiers';

export class CreateUserRequest {
  /** The user id, as the `sub` of its tokens will carry it */
  @ApiProperty({ maxLength: MAX_USER_ID_LENGTH })
  @IsIdentifier(MAX_USER_ID_LENGTH)
  user_id: string;

  @OptionalIdpId()
  idp_id?: string;
}

export class UserResponse {
  user_id: string;

  /** The IdP of the user: a user is its subject as one IdP of the tenant asserts it */
  idp_id: string;

  @ApiPropertyOptional({ format: 'date-time' })
  created_at?: string;

  /** When a token of the user was last resolved (absent until its first login) */
  @ApiPropertyOptional({ format: 'date-time' })
  last_seen_at?: string;

  /** Since when the user is disabled (absent while it is enabled) */
  @ApiPropertyOptional({ format: 'date-time' })
  disabled_at?: string;
}

export class UserPage extends PageOf(UserResponse) {}
