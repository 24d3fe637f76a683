import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { Problems, isDuplicateKey } from '@lib/core';
import { DEFAULT_PAGE_SIZE, PageQuery } from '@lib/http';
import { AuditService } from '../audit/audit.service';
import { OrgRepository } from '../identity/org.repository';
import { RoleRepository } from '../identity/role.repository';
import { Team, externalRefKey } from '../identity/schemas/team.schema';
import { User } from '../identity/schemas/user.schema';
import { TeamRepository } from '../identity/team.repository';
import { UserRepository } from '../identity/user.repository';
import { userKeyOf } from './user-key-of';
import { CreateTeamRequest, TeamPage, TeamResponse } from './dto/team.dto';
import { CreateUserRequest, UserPage, UserResponse } from './dto/user.dto';
import { MembershipEvents } from './membership-events';

type Timestamped = { createdAt?: Date; updatedAt?: Date };

export function toTeamResponse(team: Team & Timestamped): TeamResponse {
  return {
    team_code: team.teamCode,
    org_code: team.orgCode,
    roles: team.roles ?? [],
    ...(team.externalRefId ? { external_ref_id: team.externalRefId } : {}),
    ...(team.createdAt ? { created_at: new Date(team.createdAt).toISOString() } : {}),
  };
}

export function toUserResponse(user: User & Timestamped): UserResponse {
  return {
    user_id: user.userId,
    idp_id: user.idpId,
    ...(user.createdAt ? { created_at: new Date(user.createdAt).toISOString() } : {}),
    ...(user.lastSeenAt ? { last_seen_at: new Date(user.lastSeenAt).toISOString() } : {}),
    ...(user.disabledAt ? { disabled_at: new Date(user.disabledAt).toISOString() } : {}),
  };
}

const teamNotFound = (teamCode: string) => Problems.notFound('TEAM_NOT_FOUND', `Team "${teamCode}" does not exist`);

/** A way in: teams (with their org and roles) and users, before they are joined (docs/interface.md#teams-users-and-memberships). */
@Injectable()
export class TeamsService {
  constructor(
    private readonly teams: TeamRepository,
    private readonly orgs: OrgRepository,
    private readonly roles: RoleRepository,
    private readonly users: UserRepository,
    private readonly audit: AuditService,
    private readonly events: MembershipEvents,
  ) {}

  /**
   * Creates a team; its org and role records are created when missing. The unique indexes on
   * (tenant, team code) and (tenant, external reference) decide conflicts, also between
   * concurrent calls; the checks before the insert only keep a refused call free of side effects.
   */
  async createTeam(principal: Principal, request: CreateTeamRequest): Promise<TeamResponse> {
    const { tenantId } = principal;
    await this.refuseConflicts(tenantId, request);
    await this.upsertIgnoringRace(() =>
      this.orgs.updateOne(tenantId, { orgCode: request.org_code }, { $setOnInsert: { orgCode: request.org_code } }, { upsert: true }),
    );
    await Promise.all(
      request.roles.map((name) =>
        this.upsertIgnoringRace(() => this.roles.updateOne(tenantId, { name }, { $setOnInsert: { name } }, { upsert: true })),
      ),
    );
    const doc = {
      teamCode: request.team_code,
      orgCode: request.org_code,
      roles: request.roles,
      ...(request.external_ref_id ? { externalRefId: request.external_ref_id } : {}),
      externalRefKey: externalRefKey({ teamCode: request.team_code, externalRefId: request.external_ref_id }),
    };
    let created: Team & Timestamped;
    try {
      created = await this.teams.create(tenantId, doc);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      throw this.conflictOf(error, request);
    }
    const response = toTeamResponse(created);
    await this.audit.record(principal, { action: 'team.create', resource: 'team', resourceId: request.team_code, after: response });
    // A team with an external reference changes the teams of every caller carrying that group.
    await this.events.changed(tenantId, [], [request.team_code]);
    return response;
  }

  async listTeams(tenantId: string, query: PageQuery): Promise<TeamPage> {
    const page = await this.teams.page(tenantId, {}, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(toTeamResponse), nextCursor: page.nextCursor };
  }

  async getTeam(tenantId: string, teamCode: string): Promise<TeamResponse> {
    const team = await this.teams.findOne(tenantId, { teamCode });
    if (!team) throw teamNotFound(teamCode);
    return toTeamResponse(team);
  }

  async listUsers(tenantId: string, query: PageQuery): Promise<UserPage> {
    const page = await this.users.page(tenantId, {}, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(toUserResponse), nextCursor: page.nextCursor };
  }

  /** Adds a user of an IdP before its first login (users are otherwise provisioned by their first token). */
  async createUser(principal: Principal, request: CreateUserRequest): Promise<UserResponse> {
    const { tenantId } = principal;
    const { userId, idpId } = userKeyOf(principal, request);
    const exists = () => Problems.conflict('USER_EXISTS', `User "${userId}" of IdP "${idpId}" already exists`);
    if (await this.users.exists(tenantId, { userId, idpId })) throw exists();
    let created: User & Timestamped;
    try {
      created = await this.users.create(tenantId, { userId, idpId });
    } catch (error) {
      if (isDuplicateKey(error)) throw exists();
      throw error;
    }
    const response = toUserResponse(created);
    await this.audit.record(principal, { action: 'user.create', resource: 'user', resourceId: userId, after: response });
    return response;
  }

  private async refuseConflicts(tenantId: string, request: CreateTeamRequest): Promise<void> {
    if (await this.teams.exists(tenantId, { teamCode: request.team_code })) throw teamCodeTaken(request.team_code);
    if (request.external_ref_id && (await this.teams.exists(tenantId, { externalRefId: request.external_ref_id }))) {
      throw externalRefInUse(request.external_ref_id);
    }
  }

  /** Which unique index refused the insert (a concurrent call got there first). */
  private conflictOf(error: unknown, request: CreateTeamRequest) {
    const { keyPattern, keyValue } = error as { keyPattern?: Record<string, unknown>; keyValue?: Record<string, unknown> };
    const fields = Object.keys({ ...keyPattern, ...keyValue });
    if (fields.includes('externalRefKey') && request.external_ref_id) return externalRefInUse(request.external_ref_id);
    return teamCodeTaken(request.team_code);
  }

  private async upsertIgnoringRace(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
}

const teamCodeTaken = (teamCode: string) => Problems.conflict('TEAM_CODE_TAKEN', `Team code "${teamCode}" is already used`);
const externalRefInUse = (ref: string) =>
  Problems.conflict('EXTERNAL_REF_IN_USE', `External reference "${ref}" already belongs to another team`);
