import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal, principalCacheKey, PrincipalResolver, tenantCachePrefix, TokenClaims, userCachePrefix } from '@lib/auth';
import { InvalidatingCache, MessageBus, ResolvePrincipalReply } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { CostassetEnvironment } from '../costasset.environment';

/**
 * Asks authz (over NATS) for the caller's teams and roles and caches the answer until an
 * `authz.config.changed` or `authz.membership.changed` event of the tenant, or an
 * `authz.access.revoked` event of the user, drops it. authz refuses a disabled user or a revoked
 * session (`USER_DISABLED`, `TOKEN_REVOKED`); a refusal is never cached, so it holds on every
 * instance as soon as the event has dropped the user's entries.
 */
@Injectable()
export class RemotePrincipalResolver extends PrincipalResolver implements OnModuleInit {
  private readonly cache: InvalidatingCache<ResolvePrincipalReply>;

  constructor(
    private readonly bus: MessageBus,
    env: CostassetEnvironment,
    metrics: Metrics,
  ) {
    super();
    this.cache = new InvalidatingCache({
      ttlMs: env.PRINCIPAL_CACHE_TTL_MS,
      maxEntries: 20_000,
      observer: metrics.cacheObserver('principals'),
    });
  }

  onModuleInit(): void {
    void this.bus.subscribe('authz.config.changed', (event) => void this.cache.invalidatePrefix(tenantCachePrefix(event.tenantId)));
    void this.bus.subscribe('authz.membership.changed', (event) => void this.cache.invalidatePrefix(tenantCachePrefix(event.tenantId)));
    void this.bus.subscribe(
      'authz.access.revoked',
      (event) => void this.cache.invalidatePrefix(userCachePrefix(event.tenantId, event.userId)),
    );
  }

  async resolve(claims: TokenClaims): Promise<Principal> {
    const groups = [...claims.groups].sort();
    const access = await this.cache.getOrLoad(principalCacheKey(claims), () =>
      this.bus.request('authz.principal.resolve', {
        tenantId: claims.tid,
        userId: claims.sub,
        idpId: claims.idp,
        groups,
        sessionId: claims.sid,
      }),
    );
    return { userId: claims.sub, tenantId: claims.tid, idpId: claims.idp, groups: claims.groups, ...access };
  }

  /** Number of cached principals (observability and tests). */
  cachedEntries(): number {
    return this.cache.size;
  }
}
