import { Injectable, Logger } from '@nestjs/common';
import { type Principal, SYSTEM_ADMIN_ROLE } from '@lib/auth';
import { duplicateKeyFields, isDuplicateKey } from '@lib/core';
import { BootstrapService, INITIAL_ADMIN_TEAM } from '../identity/bootstrap.service';
import { MembershipRepository } from '../identity/membership.repository';
import { OrgRepository } from '../identity/org.repository';
import { RoleRepository } from '../identity/role.repository';
import { externalRefKey } from '../identity/schemas/team.schema';
import { TeamRepository } from '../identity/team.repository';
import { AuthTypeProblems } from './auth-type.problems';
import { Compensation } from './compensation';

export interface AdminTeamSpec {
  teamCode: string;
  orgCode: string;
  externalRef: string;
}

/** Turns a duplicate key of the teams collection into the problem the caller sees. */
function teamConflict(error: unknown): unknown {
  const fields = duplicateKeyFields(error);
  if (fields?.includes('teamCode')) return AuthTypeProblems.teamCodeTaken();
  if (fields?.includes('externalRefKey') || fields?.includes('externalRefId')) return AuthTypeProblems.externalRefInUse();
  return error;
}

/**
 * The identity side of hybrid configurations: the System Admin team with its external reference,
 * its org, and the `INITIAL-SETUP-ADMIN` fallback when a hybrid configuration goes away. Every
 * write registers its undo in the request's Compensation; uniqueness comes from the unique
 * indexes of teams, orgs and memberships, never from a read before the write.
 */
@Injectable()
export class HybridAdminTeamService {
  private readonly logger = new Logger('HybridAdminTeam');

  constructor(
    private readonly teams: TeamRepository,
    private readonly orgs: OrgRepository,
    private readonly roles: RoleRepository,
    private readonly memberships: MembershipRepository,
    private readonly bootstrap: BootstrapService,
  ) {}

  /** Creates the org when missing and a *new* team (409 TEAM_CODE_TAKEN / EXTERNAL_REF_IN_USE otherwise). */
  async createTeam(tenantId: string, spec: AdminTeamSpec, undo: Compensation): Promise<void> {
    await this.ensureSystemAdminRole(tenantId);
    await this.ensureOrg(tenantId, spec.orgCode, undo);
    let team;
    try {
      team = await this.teams.create(tenantId, {
        teamCode: spec.teamCode,
        orgCode: spec.orgCode,
        roles: [SYSTEM_ADMIN_ROLE],
        externalRefId: spec.externalRef,
        externalRefKey: externalRefKey({ teamCode: spec.teamCode, externalRefId: spec.externalRef }),
      });
    } catch (error) {
      throw teamConflict(error);
    }
    const id = team._id;
    undo.add(`delete team ${spec.teamCode}`, () => this.teams.deleteOne(tenantId, { _id: id }));
  }

  /**
   * Team, org and external reference are checked and created when missing
   * (docs/interface.md#idp-mappings): the org is created when missing, a missing team is created,
   * an existing team gets the external reference and the `System Admin` role when it lacks them.
   */
  async ensureTeam(tenantId: string, spec: AdminTeamSpec, undo: Compensation): Promise<void> {
    const team = await this.teams.findOne(tenantId, { teamCode: spec.teamCode });
    if (!team) return this.createTeam(tenantId, spec, undo);
    await this.ensureOrg(tenantId, spec.orgCode, undo);
    if (!team.roles.includes(SYSTEM_ADMIN_ROLE)) {
      await this.ensureSystemAdminRole(tenantId);
      await this.teams.updateOne(tenantId, { _id: team._id }, { $addToSet: { roles: SYSTEM_ADMIN_ROLE } });
      undo.add(`remove System Admin from ${team.teamCode}`, () =>
        this.teams.updateOne(tenantId, { _id: team._id }, { $pull: { roles: SYSTEM_ADMIN_ROLE } }),
      );
    }
    if (team.externalRefId !== spec.externalRef) await this.moveExternalRef(tenantId, spec.teamCode, spec.externalRef, undo);
  }

  /**
   * Sets the team's external reference (the unique `externalRefKey` refuses a reference that
   * another team holds: 409 EXTERNAL_REF_IN_USE). A missing team is not recreated here.
   */
  async moveExternalRef(tenantId: string, teamCode: string, externalRef: string, undo: Compensation): Promise<boolean> {
    const before = await this.teams.findOne(tenantId, { teamCode });
    if (!before) return false;
    if (before.externalRefId === externalRef) return true;
    try {
      await this.teams.updateOne(
        tenantId,
        { _id: before._id },
        { $set: { externalRefId: externalRef, externalRefKey: externalRefKey({ teamCode, externalRefId: externalRef }) } },
      );
    } catch (error) {
      throw teamConflict(error);
    }
    undo.add(`restore external reference of ${teamCode}`, () =>
      this.teams.updateOne(
        tenantId,
        { _id: before._id },
        before.externalRefId
          ? { $set: { externalRefId: before.externalRefId, externalRefKey: before.externalRefKey } }
          : { $set: { externalRefKey: before.externalRefKey }, $unset: { externalRefId: 1 } },
      ),
    );
    return true;
  }

  /** External references of the teams holding `System Admin` among the given groups. */
  async systemAdminRefsAmong(tenantId: string, groups: string[]): Promise<string[]> {
    if (groups.length === 0) return [];
    const teams = await this.teams.find(tenantId, { externalRefId: { $in: groups }, roles: SYSTEM_ADMIN_ROLE });
    return teams.map((team) => team.externalRefId).filter((ref): ref is string => !!ref);
  }

  /**
   * docs/interface.md#switching-to-internal: leaving hybrid authorization puts the caller into team
   * `INITIAL-SETUP-ADMIN` (org `admin_org`, role `System Admin`), so that its next calls still work
   * with internal authorization. Returns whether a membership was added.
   */
  async placeInInitialAdminTeam(principal: Pick<Principal, 'tenantId' | 'userId' | 'idpId'>, undo: Compensation): Promise<boolean> {
    const { tenantId, userId, idpId } = principal;
    await this.bootstrap.ensureAdminTeam(tenantId);
    try {
      const membership = await this.memberships.create(tenantId, { userId, idpId, teamCode: INITIAL_ADMIN_TEAM });
      undo.add(`remove ${userId} from ${INITIAL_ADMIN_TEAM}`, () => this.memberships.deleteOne(tenantId, { _id: membership._id }));
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  private async ensureOrg(tenantId: string, orgCode: string, undo: Compensation): Promise<void> {
    try {
      const org = await this.orgs.create(tenantId, { orgCode });
      // Taken back only while no team uses it (a concurrent request may have put a team into it).
      undo.add(`delete org ${orgCode}`, async () => {
        if (!(await this.teams.exists(tenantId, { orgCode }))) await this.orgs.deleteOne(tenantId, { _id: org._id });
      });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  /** The role is platform data shared by every admin team: created when missing, never taken back. */
  private async ensureSystemAdminRole(tenantId: string): Promise<void> {
    try {
      await this.roles.updateOne(tenantId, { name: SYSTEM_ADMIN_ROLE }, { $setOnInsert: { name: SYSTEM_ADMIN_ROLE } }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      this.logger.debug('System Admin role created concurrently');
    }
  }
}
