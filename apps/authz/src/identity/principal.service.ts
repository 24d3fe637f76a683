import { Injectable } from '@nestjs/common';
import { Principal, PrincipalResolver, PrincipalTeam, SYSTEM_ADMIN_ROLE, TokenClaims } from '@lib/auth';
import { InvalidatingCache, ResolvePrincipalReply, ResolvePrincipalRequest } from '@lib/messaging';
import { isDuplicateKey } from '@lib/persistence';
import { AuthTypeResolver } from '../authtype/auth-type.resolver';
import { MembershipRepository } from './membership.repository';
import { TeamRepository } from './team.repository';
import { UserRepository } from './user.repository';

/**
 * Contract §2: a caller's teams are its internal memberships plus, when its IdP is mapped to a
 * `hybrid` configuration, every team whose external reference is one of the token's groups.
 * Authorization reads these live (cached, dropped by change events), never the token's copy.
 */
@Injectable()
export class PrincipalService extends PrincipalResolver {
  private readonly provisioned = new InvalidatingCache<true>({ ttlMs: 10 * 60_000, maxEntries: 50_000 });

  constructor(
    private readonly users: UserRepository,
    private readonly teams: TeamRepository,
    private readonly memberships: MembershipRepository,
    private readonly authTypes: AuthTypeResolver,
  ) {
    super();
  }

  async resolve(claims: TokenClaims): Promise<Principal> {
    const resolved = await this.resolveAccess({ tenantId: claims.tid, userId: claims.sub, idpId: claims.idp, groups: claims.groups });
    return { userId: claims.sub, tenantId: claims.tid, idpId: claims.idp, groups: claims.groups, ...resolved };
  }

  async resolveAccess(request: ResolvePrincipalRequest): Promise<ResolvePrincipalReply> {
    const { tenantId, userId, idpId, groups } = request;
    await this.provision(tenantId, userId);
    const { authType, authTypeId } = await this.authTypes.forIdp(tenantId, idpId);
    const memberTeamCodes = (await this.memberships.find(tenantId, { userId })).map((m) => m.teamCode);
    const internal = memberTeamCodes.length ? await this.teams.find(tenantId, { teamCode: { $in: memberTeamCodes } }) : [];
    const external = authType === 'hybrid' && groups.length ? await this.teams.find(tenantId, { externalRefId: { $in: groups } }) : [];
    const teams = new Map<string, PrincipalTeam>();
    for (const team of internal) teams.set(team.teamCode, { teamCode: team.teamCode, orgCode: team.orgCode, roles: team.roles, via: 'internal' });
    for (const team of external) {
      if (!teams.has(team.teamCode)) teams.set(team.teamCode, { teamCode: team.teamCode, orgCode: team.orgCode, roles: team.roles, via: 'external' });
    }
    const roles = [...new Set([...teams.values()].flatMap((team) => team.roles))].sort();
    return { authType, authTypeId, teams: [...teams.values()], roles, isSystemAdmin: roles.includes(SYSTEM_ADMIN_ROLE) };
  }

  /** Just-in-time provisioning (contract §2): the first valid token of a user creates its record. */
  private provision(tenantId: string, userId: string): Promise<true> {
    return this.provisioned.getOrLoad(`${tenantId}:${userId}`, async () => {
      try {
        await this.users.updateOne(tenantId, { userId }, { $setOnInsert: { userId }, $set: { lastSeenAt: new Date() } }, { upsert: true });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      return true;
    });
  }
}
