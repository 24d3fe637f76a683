import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';
import { ArrayMaxSize, ArrayUnique, IsArray, IsOptional } from 'class-validator';
import { IsIdentifier, MAX_CODE_LENGTH, MAX_EXTERNAL_REF_LENGTH, MAX_ROLE_LENGTH } from './identifiers';

export const MAX_ROLES_PER_TEAM = 50;

export class CreateTeamRequest {
  /** Unique team code within the tenant */
  @ApiProperty({ maxLength: MAX_CODE_LENGTH })
  @IsIdentifier(MAX_CODE_LENGTH)
  team_code: string;

  /** Org of the team; created when it does not exist */
  @ApiProperty({ maxLength: MAX_CODE_LENGTH })
  @IsIdentifier(MAX_CODE_LENGTH)
  org_code: string;

  @ApiProperty({
    type: [String],
    maxItems: MAX_ROLES_PER_TEAM,
    description:
      `Role names (free strings, at most ${MAX_ROLE_LENGTH} characters each; role records are created when missing). ` +
      '`System Admin` makes members System Admins.',
  })
  @IsArray()
  @ArrayMaxSize(MAX_ROLES_PER_TEAM)
  @ArrayUnique()
  @IsIdentifier(MAX_ROLE_LENGTH, true)
  roles: string[];

  /** External group (IdP / directory) that stands for this team in hybrid authorization; belongs to at most one team */
  @ApiPropertyOptional({ maxLength: MAX_EXTERNAL_REF_LENGTH })
  @IsOptional()
  @IsIdentifier(MAX_EXTERNAL_REF_LENGTH)
  external_ref_id?: string;
}

export class TeamResponse {
  team_code: string;

  org_code: string;

  roles: string[];

  external_ref_id?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  created_at?: string;
}

export class TeamPage extends PageOf(TeamResponse) {}
