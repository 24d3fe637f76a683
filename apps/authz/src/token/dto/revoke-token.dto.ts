import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsSafeText } from '@lib/http';

export const TOKEN_TYPE_HINTS = ['refresh_token', 'access_token'] as const;

export class RevokeTokenRequest {
  /**
   * A refresh token of the session to end. Its whole session (every refresh token rotated from the same sign-in, and the access tokens
   * issued with them) is revoked. A token that is invalid, expired, unknown or revoked already is answered 200 all the same (a request that
   * is not a string of text, with control characters, is `400`).
   */
  @ApiProperty({ maxLength: 8192 })
  @IsSafeText(8192)
  token: string;

  /** Accepted and ignored: only refresh tokens revoke a session */
  @ApiPropertyOptional({ enum: TOKEN_TYPE_HINTS })
  @IsOptional()
  @IsIn(TOKEN_TYPE_HINTS)
  token_type_hint?: (typeof TOKEN_TYPE_HINTS)[number];
}
