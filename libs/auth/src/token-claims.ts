export const AUTH_TYPES = ['internal', 'hybrid'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** What the corelite-token asserts about its bearer (contract §2). */
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
}

export type AccessClaimsInput = Pick<TokenClaims, 'sub' | 'tid' | 'idp' | 'groups' | 'authType' | 'authTypeId'>;
export type RefreshClaimsInput = Pick<TokenClaims, 'sub' | 'tid' | 'idp' | 'groups'>;
