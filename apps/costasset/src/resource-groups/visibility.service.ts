import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { combineFilters } from '../expressions';
import { groupFilter } from './group-expression';
import { ResourceGroupProblems } from './resource-group.problems';
import { ResourceGroupRepository } from './resource-group.repository';

/** Matches no document: what a caller sees when no visibility group authorizes it. */
export const MATCH_NOTHING = Object.freeze({ _id: { $in: [] } });

/**
 * Whose visibility work runs within, kept where the work outlives the request (an import job):
 * `teams: null` for a System Admin (everything), else the caller's team codes.
 */
export interface VisibilityGrant {
  teams: string[] | null;
}

/** The grant of the service's own work (and of System Admins). */
export const EVERYTHING: VisibilityGrant = Object.freeze({ teams: null });

/** Turns resource groups into MongoDB filters over line items. */
@Injectable()
export class VisibilityService {
  constructor(private readonly groups: ResourceGroupRepository) {}

  /**
   * What the caller may see: `null` (everything) for a System Admin; otherwise the union of the
   * visibility groups of its teams, and nothing at all when no group names one of its teams.
   */
  filterFor(principal: Principal): Promise<Record<string, unknown> | null> {
    return this.filterForGrant(principal.tenantId, grantOf(principal));
  }

  /** As `filterFor`, for a grant taken from a caller earlier. */
  async filterForGrant(tenantId: string, grant: VisibilityGrant): Promise<Record<string, unknown> | null> {
    if (grant.teams === null) return null;
    const groups = await this.groupsOf(tenantId, grant.teams);
    if (groups.length === 0) return MATCH_NOTHING;
    const filters = groups.map((group) => groupFilter(group.expr));
    return filters.length === 1 ? filters[0] : { $or: filters };
  }

  /** The ids of the visibility groups that make up the caller's visibility: `null` (everything) for a System Admin. */
  async groupIdsFor(principal: Principal): Promise<string[] | null> {
    const { teams } = grantOf(principal);
    if (teams === null) return null;
    return (await this.groupsOf(principal.tenantId, teams)).map((group) => group.groupId).sort();
  }

  private groupsOf(tenantId: string, teams: string[]) {
    return teams.length ? this.groups.find(tenantId, { type: 'visibility', teams: { $in: teams } }) : Promise.resolve([]);
  }

  /** The filters of visibility groups named by id (report models' `vtags`), ANDed together. */
  async namedVisibilityFilter(tenantId: string, groupIds: string[]): Promise<Record<string, unknown>> {
    if (groupIds.length === 0) return {};
    const groups = await this.groups.find(tenantId, { groupId: { $in: groupIds }, type: 'visibility' });
    const missing = groupIds.filter((id) => !groups.some((group) => group.groupId === id));
    if (missing.length > 0) throw ResourceGroupProblems.notFound(missing[0]);
    return combineFilters(...groups.map((group) => groupFilter(group.expr)));
  }

  /**
   * The `budgetary` groups whose budgets the caller may see: `null` (all) for a System Admin;
   * otherwise the groups whose `context.teams` names one of its teams (as for listing groups).
   */
  async budgetaryGroupIdsFor(principal: Principal): Promise<string[] | null> {
    if (principal.isSystemAdmin) return null;
    const teams = principal.teams.map((team) => team.teamCode);
    if (teams.length === 0) return [];
    const groups = await this.groups.find(principal.tenantId, { type: 'budgetary', teams: { $in: teams } }, {}, { groupId: 1 });
    return groups.map((group) => group.groupId);
  }

  /** The slice of a `budgetary` group, used as a budget scope. */
  async budgetaryFilter(tenantId: string, groupId: string): Promise<Record<string, unknown>> {
    return groupFilter(await this.budgetaryExpression(tenantId, groupId));
  }

  /** The expression of a `budgetary` group (a budget's scope in words, and the explorer's filter of it). */
  async budgetaryExpression(tenantId: string, groupId: string): Promise<string> {
    const group = await this.groups.findOne(tenantId, { groupId, type: 'budgetary' });
    if (!group) throw ResourceGroupProblems.notFound(groupId);
    return group.expr;
  }
}

export function grantOf(principal: Principal): VisibilityGrant {
  return principal.isSystemAdmin ? EVERYTHING : { teams: principal.teams.map((team) => team.teamCode) };
}
