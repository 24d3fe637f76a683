import type { AuthType } from './token-claims';

export const SYSTEM_ADMIN_ROLE = 'System Admin';
/** Imports, re-imports and deletes cost data, within the billing accounts its visibility groups show it. */
export const COST_DATA_MANAGER_ROLE = 'Cost Data Manager';

export interface PrincipalTeam {
  teamCode: string;
  orgCode: string;
  roles: string[];
  /** `internal` membership, or `external` through a token group matching the team's external reference. */
  via: 'internal' | 'external';
}

/** The authenticated caller, as every handler sees it. */
export interface Principal {
  userId: string;
  tenantId: string;
  idpId: string;
  groups: string[];
  authType: AuthType;
  authTypeId?: string;
  teams: PrincipalTeam[];
  roles: string[];
  isSystemAdmin: boolean;
}
