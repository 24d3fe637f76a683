import { IsJWT, MaxLength } from 'class-validator';

export class RefreshTokenRequest {
  /**
   * A refresh JWT (`typ: "refresh"`) signed by this platform: a sign-in refresh token, or the last one this route answered. Each is spent
   * by its use; spending one again revokes its whole session (`401 TOKEN_REVOKED`).
   */
  @IsJWT()
  @MaxLength(8192)
  refresh_token: string;
}

export class AccessTokenResponse {
  /** A new corelite-token carrying the auth type of the IdP as it is now, and the session as `sid` */
  access_token: string;

  /**
   *
   * @example "Bearer"
   */
  token_type: 'Bearer';

  /** Lifetime of `access_token` in seconds */
  expires_in: number;

  /**
   * The refresh token to use next time: the one sent is spent. It belongs to the same session and expires when the sign-in refresh token
   * did (rotation never lengthens a session).
   */
  refresh_token: string;
}
