export const AUTH_TYPES = ['internal', 'hybrid'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** What the corelite-token asserts about its bearer (docs/decisions.md#tokens). */
export interface TokenClaims {
  sub: string;
  tid: string;
  idp: string;
  groups: string[];
  authType: AuthType;
  authTypeId?: string;
  typ?: 'access' | 'refresh';
  iat?: number;
  exp?: number;
  iss?: string;
  jti?: string;
  /**
   * The session: the id of the refresh-token family the token was issued from (absent in tokens
   * minted outside authz, such as those of `npm run token`). A revoked session refuses its tokens.
   */
  sid?: string;
}

export type AccessClaimsInput = Pick<TokenClaims, 'sub' | 'tid' | 'idp' | 'groups' | 'authType' | 'authTypeId' | 'sid'>;
export type RefreshClaimsInput = Pick<TokenClaims, 'sub' | 'tid' | 'idp' | 'groups' | 'sid'>;
