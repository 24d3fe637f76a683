import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal, principalCacheKey, PrincipalResolver, PrincipalTeam, SYSTEM_ADMIN_ROLE, TokenClaims, userCachePrefix } from '@lib/auth';
import { CommonEnvironment } from '@lib/config';
import { InvalidatingCache, MessageBus, ResolvePrincipalReply, ResolvePrincipalRequest } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { isDuplicateKey } from '@lib/core';
import { AccessRefusals } from './access-refusals';
import { IdpAuthTypes } from './idp-auth-types';
import { MembershipRepository } from './membership.repository';
import { TeamRepository } from './team.repository';
import { UserRepository } from './user.repository';
import type { UserKey } from './user-key';

/**
 * docs/decisions.md#tokens: a caller's teams are its internal memberships plus, when its IdP is mapped to a
 * `hybrid` configuration, every team whose external reference is one of the token's groups.
 * Authorization reads these live, never the token's copy: cached per caller as costasset caches
 * them, and a tenant's entries dropped by `authz.config.changed` and `authz.membership.changed`
 * (and at once in this instance, by `forget`, when the change is made here), a user's by
 * `authz.access.revoked`. A disabled user or a revoked session is refused (AccessRefusals).
 */
@Injectable()
export class PrincipalService extends PrincipalResolver implements OnModuleInit {
  private readonly provisioned: InvalidatingCache<true>;
  private readonly principals: InvalidatingCache<ResolvePrincipalReply>;

  constructor(
    private readonly users: UserRepository,
    private readonly teams: TeamRepository,
    private readonly memberships: MembershipRepository,
    private readonly authTypes: IdpAuthTypes,
    private readonly refusals: AccessRefusals,
    private readonly bus: MessageBus,
    metrics: Metrics,
    env: CommonEnvironment,
  ) {
    super();
    this.provisioned = new InvalidatingCache({
      ttlMs: 10 * 60_000,
      maxEntries: 50_000,
      observer: metrics.cacheObserver('provisioned-users'),
    });
    this.principals = new InvalidatingCache({
      ttlMs: env.PRINCIPAL_CACHE_TTL_MS,
      maxEntries: 20_000,
      observer: metrics.cacheObserver('principals'),
    });
  }

  onModuleInit(): void {
    void this.bus.subscribe('authz.config.changed', (event) => this.forget(event.tenantId));
    void this.bus.subscribe('authz.membership.changed', (event) => this.forget(event.tenantId));
    void this.bus.subscribe('authz.access.revoked', (event) => this.forgetUser(event.tenantId, event.userId));
  }

  /** The caller of an HTTP request to authz (the access guard). */
  async resolve(claims: TokenClaims): Promise<Principal> {
    return { userId: claims.sub, tenantId: claims.tid, idpId: claims.idp, groups: claims.groups, ...(await this.cachedAccess(claims)) };
  }

  /** Teams, roles and auth type from the cache (token refresh and the access guard). */
  cachedAccess(claims: Pick<TokenClaims, 'tid' | 'sub' | 'idp' | 'groups' | 'sid'>): Promise<ResolvePrincipalReply> {
    const groups = [...claims.groups].sort();
    return this.principals.getOrLoad(principalCacheKey(claims), () =>
      this.resolveAccess({ tenantId: claims.tid, userId: claims.sub, idpId: claims.idp, groups, sessionId: claims.sid }),
    );
  }

  /** Drops the tenant's cached principals: a change of this instance, or an event of any. */
  forget(tenantId: string): void {
    this.principals.invalidatePrefix(`${tenantId}\u0000`);
  }

  /** Drops one user's cached principals: its sessions were revoked or it was disabled. */
  forgetUser(tenantId: string, userId: string): void {
    this.principals.invalidatePrefix(userCachePrefix(tenantId, userId));
  }

  /**
   * Read from the database, uncached: what costasset asks over NATS (it caches the answer itself,
   * and must never cache an answer this instance read before it saw the event that dropped both).
   */
  async resolveAccess(request: ResolvePrincipalRequest): Promise<ResolvePrincipalReply> {
    const { tenantId, userId, idpId, groups } = request;
    await this.refusals.check(tenantId, { idpId, userId }, request.sessionId);
    await this.provision(tenantId, { idpId, userId });
    const { authType, authTypeId } = await this.authTypes.forIdp(tenantId, idpId);
    const memberTeamCodes = await this.memberships.teamCodesOf(tenantId, { idpId, userId });
    const internal = memberTeamCodes.length ? await this.teams.find(tenantId, { teamCode: { $in: memberTeamCodes } }) : [];
    const external = authType === 'hybrid' && groups.length ? await this.teams.find(tenantId, { externalRefId: { $in: groups } }) : [];
    const teams = new Map<string, PrincipalTeam>();
    for (const team of internal)
      teams.set(team.teamCode, { teamCode: team.teamCode, orgCode: team.orgCode, roles: team.roles, via: 'internal' });
    for (const team of external) {
      if (!teams.has(team.teamCode))
        teams.set(team.teamCode, { teamCode: team.teamCode, orgCode: team.orgCode, roles: team.roles, via: 'external' });
    }
    const roles = [...new Set([...teams.values()].flatMap((team) => team.roles))].sort();
    return { authType, authTypeId, teams: [...teams.values()], roles, isSystemAdmin: roles.includes(SYSTEM_ADMIN_ROLE) };
  }

  /** Just-in-time provisioning (docs/decisions.md#tokens): the first valid token of a user (tenant, IdP, subject) creates its record. */
  private provision(tenantId: string, user: UserKey): Promise<true> {
    return this.provisioned.getOrLoad([tenantId, user.idpId, user.userId].join('\u0000'), async () => {
      try {
        await this.users.updateOne(
          tenantId,
          { ...user },
          { $setOnInsert: { ...user }, $set: { lastSeenAt: new Date() } },
          { upsert: true },
        );
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      return true;
    });
  }
}
