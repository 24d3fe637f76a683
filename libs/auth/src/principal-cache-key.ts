import type { TokenClaims } from './token-claims';

const SEPARATOR = '\u0000';

/**
 * The key under which a service caches what a token's caller may do: the tenant first (a tenant's
 * change drops its prefix), then the user (its revocation drops `userCachePrefix`), the IdP, the
 * session (a revoked session must not hit an entry another session of the user loaded) and the groups.
 */
export function principalCacheKey(claims: Pick<TokenClaims, 'tid' | 'sub' | 'idp' | 'groups' | 'sid'>): string {
  return [claims.tid, claims.sub, claims.idp, claims.sid ?? '', ...[...claims.groups].sort()].join(SEPARATOR);
}

export const tenantCachePrefix = (tenantId: string): string => `${tenantId}${SEPARATOR}`;

export const userCachePrefix = (tenantId: string, userId: string): string => `${tenantId}${SEPARATOR}${userId}${SEPARATOR}`;
