import { AuthTypeProblems } from './auth-type.problems';

export interface ExternalRefChange {
  /** Groups of the caller's token (SAML assertion or refresh token). */
  tokenGroups: string[];
  /** The external reference id the configuration should have. */
  newExternalRef: string;
  /** External reference ids of the teams that hold `System Admin` now (before the change). */
  systemAdminTeamRefs: string[];
}

/**
 * docs/interface.md#changing-a-hybrid-external-reference: changing the external reference of a
 * hybrid configuration requires that the caller's token carries groups, that the new reference is
 * one of them (the caller keeps access after the move), and that at least one token group is,
 * before the change, the external reference of a team holding `System Admin` (the caller is a
 * hybrid System Admin now). Throws the matching 403 problem, checked in that order.
 */
export function assertExternalRefChangeAllowed(change: ExternalRefChange): void {
  if (change.tokenGroups.length === 0) throw AuthTypeProblems.tokenGroupsMissing();
  if (!change.tokenGroups.includes(change.newExternalRef)) throw AuthTypeProblems.externalRefNotInTokenGroups();
  const adminRefs = new Set(change.systemAdminTeamRefs);
  if (!change.tokenGroups.some((group) => adminRefs.has(group))) throw AuthTypeProblems.noSystemAdminTeamForGroups();
}
