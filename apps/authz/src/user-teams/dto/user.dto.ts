import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';
import { IsIdentifier, MAX_USER_ID_LENGTH, OptionalIdpId } from './identifiers';

export class CreateUserRequest {
  @ApiProperty({ maxLength: MAX_USER_ID_LENGTH, description: 'The user id, as the `sub` of its tokens will carry it' })
  @IsIdentifier(MAX_USER_ID_LENGTH)
  user_id: string;

  @OptionalIdpId()
  idp_id?: string;
}

export class UserResponse {
  @ApiProperty()
  user_id: string;

  @ApiProperty({ description: 'The IdP of the user: a user is its subject as one IdP of the tenant asserts it' })
  idp_id: string;

  @ApiPropertyOptional({ type: String, format: 'date-time' })
  created_at?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'When a token of the user was last resolved (absent until its first login)' })
  last_seen_at?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Since when the user is disabled (absent while it is enabled)' })
  disabled_at?: string;
}

export class UserPage extends PageOf(UserResponse) {}
