import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { ProblemException, Problems } from '@lib/core';
import { AuditService } from '../audit/audit.service';
import { Directory } from '../directory/directory';
import { MembershipPair, MembershipRepository } from '../identity/membership.repository';
import { TeamRepository } from '../identity/team.repository';
import { UserRepository } from '../identity/user.repository';
import type { UserKey } from '../identity/user-key';
import {
  BulkAddResponse,
  BulkRemoveResponse,
  BulkUserTeamRequest,
  ExternalGroupsError,
  UserTeamAddResponse,
  UserTeamPair,
  UserTeamRemoveResponse,
  UserTeamRequest,
  UserTeamsQuery,
  UserTeamsResponse,
} from './dto/user-team.dto';
import { MembershipEvents } from './membership-events';
import { idpIdOf, userKeyOf } from './user-key-of';

/** Bounds one bulk write (and its answer): 500 users × 500 teams would be 250,000 memberships. */
export const MAX_BULK_PAIRS = 10_000;

const pairKey = (pair: MembershipPair) => `${pair.userId}\u0000${pair.teamCode}`;
const toPair = (pair: MembershipPair): UserTeamPair => ({ user_id: pair.userId, team_code: pair.teamCode });

/** Every (user, team) combination, users of one IdP, in the order of `user_id_list`, then `team_code_list`. */
export function combinations(idpId: string, userIds: string[], teamCodes: string[]): MembershipPair[] {
  return userIds.flatMap((userId) => teamCodes.map((teamCode) => ({ userId, idpId, teamCode })));
}

/** Internal memberships of users in teams (docs/interface.md#teams-users-and-memberships). */
@Injectable()
export class UserTeamsService {
  private readonly logger = new Logger('UserTeams');

  constructor(
    private readonly memberships: MembershipRepository,
    private readonly teams: TeamRepository,
    private readonly users: UserRepository,
    private readonly directory: Directory,
    private readonly audit: AuditService,
    private readonly events: MembershipEvents,
  ) {}

  async add(principal: Principal, request: UserTeamRequest): Promise<UserTeamAddResponse> {
    const pair = { ...userKeyOf(principal, request), teamCode: request.team_code };
    await this.requireTeamAndUser(principal.tenantId, pair);
    const added = await this.memberships.add(principal.tenantId, pair);
    if (added) await this.changed(principal, 'userteam.add', [pair]);
    return { user_id: pair.userId, team_code: pair.teamCode, added };
  }

  async remove(principal: Principal, request: UserTeamRequest): Promise<UserTeamRemoveResponse> {
    const pair = { ...userKeyOf(principal, request), teamCode: request.team_code };
    await this.requireTeamAndUser(principal.tenantId, pair);
    const removed = await this.memberships.remove(principal.tenantId, pair);
    if (removed) await this.changed(principal, 'userteam.remove', [pair]);
    return { user_id: pair.userId, team_code: pair.teamCode, removed };
  }

  /**
   * The user's internal teams (database) and its external groups (directory). The directory is
   * optional: not configured reads as no groups; unreachable or refusing the credentials reads as
   * no groups plus `external_groups_error`, so the teams are still answered. The user is of the
   * IdP `query.idp_id`, the caller's own by default; any caller may read itself.
   */
  async read(principal: Principal, userId: string, query: UserTeamsQuery): Promise<UserTeamsResponse> {
    const { tenantId } = principal;
    const user = userKeyOf(principal, { user_id: userId, idp_id: query.idp_id });
    if (!principal.isSystemAdmin && (principal.userId !== user.userId || principal.idpId !== user.idpId)) {
      throw Problems.forbidden('USER_TEAMS_FORBIDDEN', "Only a System Admin may read another user's teams");
    }
    if (!(await this.users.exists(tenantId, { ...user }))) throw userNotFound(userId);
    const [teams, external] = await Promise.all([this.teamsOf(tenantId, user), this.externalGroupsOf(tenantId, userId)]);
    return { user_id: userId, teams, ...external };
  }

  /** All-or-nothing: every team and user must exist, else nothing changes. Then one bulk write of upserts. */
  async bulkAdd(principal: Principal, request: BulkUserTeamRequest): Promise<BulkAddResponse> {
    const { tenantId } = principal;
    const idpId = idpIdOf(principal, request);
    await this.requireAll(tenantId, idpId, request);
    const pairs = combinations(idpId, request.user_id_list, request.team_code_list);
    const existing = new Set(
      (await this.memberships.existingPairs(tenantId, idpId, request.user_id_list, request.team_code_list)).map(pairKey),
    );
    const toAdd = pairs.filter((pair) => !existing.has(pairKey(pair)));
    const already = pairs.filter((pair) => existing.has(pairKey(pair)));
    if (toAdd.length > 0) {
      await this.memberships.addPairs(tenantId, toAdd);
      await this.changed(principal, 'userteam.bulk_add', toAdd);
    }
    return { added: toAdd.map(toPair), already_member: already.map(toPair), unchanged_count: already.length };
  }

  /** All-or-nothing like `bulkAdd`; then one bulk write of deletes. */
  async bulkRemove(principal: Principal, request: BulkUserTeamRequest): Promise<BulkRemoveResponse> {
    const { tenantId } = principal;
    const idpId = idpIdOf(principal, request);
    await this.requireAll(tenantId, idpId, request);
    const pairs = combinations(idpId, request.user_id_list, request.team_code_list);
    const existing = new Set(
      (await this.memberships.existingPairs(tenantId, idpId, request.user_id_list, request.team_code_list)).map(pairKey),
    );
    const toRemove = pairs.filter((pair) => existing.has(pairKey(pair)));
    const notMember = pairs.filter((pair) => !existing.has(pairKey(pair)));
    if (toRemove.length > 0) {
      await this.memberships.removePairs(tenantId, toRemove);
      await this.changed(principal, 'userteam.bulk_remove', toRemove);
    }
    return { removed: toRemove.map(toPair), not_member: notMember.map(toPair), unchanged_count: notMember.length };
  }

  private async teamsOf(tenantId: string, user: UserKey) {
    const codes = await this.memberships.teamCodesOf(tenantId, user);
    if (codes.length === 0) return [];
    const teams = await this.teams.find(tenantId, { teamCode: { $in: codes } }, { sort: { teamCode: 1 } });
    return teams.map((team) => ({ team_code: team.teamCode, org_code: team.orgCode, roles: team.roles ?? [] }));
  }

  private async externalGroupsOf(
    tenantId: string,
    userId: string,
  ): Promise<{ external_groups: string[]; external_groups_error?: ExternalGroupsError }> {
    try {
      return { external_groups: await this.directory.groupsOf(tenantId, userId) };
    } catch (error) {
      if (error instanceof ProblemException && error.code === 'DIRECTORY_NOT_CONFIGURED') return { external_groups: [] };
      if (error instanceof ProblemException && error.getStatus() === 503) {
        return { external_groups: [], external_groups_error: { code: error.code, detail: error.message } };
      }
      this.logger.error({ tenantId, err: (error as Error)?.name }, 'reading external groups failed');
      return {
        external_groups: [],
        external_groups_error: { code: 'DIRECTORY_UNAVAILABLE', detail: 'The directory could not be read; retry later' },
      };
    }
  }

  private async requireTeamAndUser(tenantId: string, pair: MembershipPair): Promise<void> {
    if (!(await this.teams.exists(tenantId, { teamCode: pair.teamCode }))) {
      throw Problems.notFound('TEAM_NOT_FOUND', `Team "${pair.teamCode}" does not exist`);
    }
    if (!(await this.users.exists(tenantId, { userId: pair.userId, idpId: pair.idpId }))) throw userNotFound(pair.userId);
  }

  private async requireAll(tenantId: string, idpId: string, request: BulkUserTeamRequest): Promise<void> {
    const pairs = request.user_id_list.length * request.team_code_list.length;
    if (pairs > MAX_BULK_PAIRS) {
      throw Problems.badRequest('TOO_MANY_PAIRS', `users × teams is ${pairs}; at most ${MAX_BULK_PAIRS} memberships per request`);
    }
    const [teams, users] = await Promise.all([
      this.teams.find(tenantId, { teamCode: { $in: request.team_code_list } }, {}, { teamCode: 1 }),
      this.users.find(tenantId, { userId: { $in: request.user_id_list }, idpId }, {}, { userId: 1 }),
    ]);
    const knownTeams = new Set(teams.map((t) => t.teamCode));
    const knownUsers = new Set(users.map((u) => u.userId));
    const unknownTeams = request.team_code_list.filter((code) => !knownTeams.has(code));
    const unknownUsers = request.user_id_list.filter((id) => !knownUsers.has(id));
    if (unknownTeams.length === 0 && unknownUsers.length === 0) return;
    throw new ProblemException(
      404,
      'TEAMS_OR_USERS_NOT_FOUND',
      `${unknownTeams.length} team(s) and ${unknownUsers.length} user(s) do not exist; nothing was changed`,
      undefined,
      { unknown_teams: unknownTeams, unknown_users: unknownUsers },
    );
  }

  /** Audits the change, then tells every service to drop the tenant's cached principals. */
  private async changed(principal: Principal, action: string, pairs: MembershipPair[]): Promise<void> {
    const userIds = [...new Set(pairs.map((p) => p.userId))];
    const teamCodes = [...new Set(pairs.map((p) => p.teamCode))];
    const single = pairs.length === 1 ? pairs[0] : undefined;
    await this.audit.record(principal, {
      action,
      resource: 'membership',
      resourceId: single ? `${single.userId}@${single.teamCode}` : undefined,
      [action.includes('remove') ? 'before' : 'after']: {
        pairs: pairs.length,
        idp_id: pairs[0]?.idpId,
        user_ids: userIds,
        team_codes: teamCodes,
      },
    });
    await this.events.changed(principal.tenantId, userIds, teamCodes);
  }
}

const userNotFound = (userId: string) => Problems.notFound('USER_NOT_FOUND', `User "${userId}" does not exist`);
