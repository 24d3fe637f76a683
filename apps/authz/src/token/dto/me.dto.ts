import { ApiProperty } from '@nestjs/swagger';
import type { Principal } from '@lib/auth';

export class MeTeam {
  @ApiProperty()
  team_code: string;

  @ApiProperty()
  org_code: string;

  @ApiProperty({ type: [String] })
  roles: string[];

  @ApiProperty({ enum: ['internal', 'external'], description: 'internal membership, or through a token group matching the external reference' })
  via: 'internal' | 'external';
}

export class MeResponse {
  @ApiProperty()
  user_id: string;

  @ApiProperty()
  tenant_id: string;

  @ApiProperty()
  idp_id: string;

  @ApiProperty({ type: [String] })
  groups: string[];

  @ApiProperty({ enum: ['internal', 'hybrid'], description: 'auth type of the caller\'s IdP now' })
  auth_type: string;

  @ApiProperty({ type: String, nullable: true, description: 'the auth-type configuration mapped to the caller\'s IdP; null while the IdP is unmapped (internal)' })
  auth_type_id: string | null;

  @ApiProperty({ type: [MeTeam] })
  teams: MeTeam[];

  @ApiProperty({ type: [String] })
  roles: string[];

  @ApiProperty()
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
