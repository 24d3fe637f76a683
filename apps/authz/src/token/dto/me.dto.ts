import { ApiProperty } from '@nestjs/swagger';
import type { Principal } from '@lib/auth';

export class MeTeam {
  team_code: string;

  org_code: string;

  roles: string[];

  /** internal membership, or through a token group matching the external reference */
  @ApiProperty({ enum: ['internal', 'external'] })
  via: 'internal' | 'external';
}

export class MeResponse {
  user_id: string;

  tenant_id: string;

  idp_id: string;

  groups: string[];

  /** auth type of the caller's IdP now */
  @ApiProperty({ enum: ['internal', 'hybrid'] })
  auth_type: string;

  /** the auth-type configuration mapped to the caller's IdP; null while the IdP is unmapped (internal) */
  @ApiProperty({ type: String, nullable: true })
  auth_type_id: string | null;

  teams: MeTeam[];

  roles: string[];

  is_system_admin: boolean;

  static from(principal: Principal): MeResponse {
    return {
      user_id: principal.userId,
      tenant_id: principal.tenantId,
      idp_id: principal.idpId,
      groups: principal.groups,
      auth_type: principal.authType,
      auth_type_id: principal.authTypeId ?? null,
      teams: principal.teams.map((t) => ({ team_code: t.teamCode, org_code: t.orgCode, roles: t.roles, via: t.via })),
      roles: principal.roles,
      is_system_admin: principal.isSystemAdmin,
    };
  }
}
