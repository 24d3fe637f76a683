import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray } from 'class-validator';
import { IsIdentifier, MAX_CODE_LENGTH, MAX_USER_ID_LENGTH, OptionalIdpId } from './identifiers';

export const MAX_BULK_ITEMS = 500;

export class UserTeamRequest {
  @ApiProperty({ maxLength: MAX_USER_ID_LENGTH, description: 'An existing user of the tenant' })
  @IsIdentifier(MAX_USER_ID_LENGTH)
  user_id: string;

  @ApiProperty({ maxLength: MAX_CODE_LENGTH, description: 'An existing team of the tenant' })
  @IsIdentifier(MAX_CODE_LENGTH)
  team_code: string;

  @OptionalIdpId()
  idp_id?: string;
}

export class UserTeamsQuery {
  @OptionalIdpId()
  idp_id?: string;
}

export class UserTeamAddResponse {
  @ApiProperty()
  user_id: string;

  @ApiProperty()
  team_code: string;

  @ApiProperty({ description: 'false when the user already was a member (nothing changed)' })
  added: boolean;
}

export class UserTeamRemoveResponse {
  @ApiProperty()
  user_id: string;

  @ApiProperty()
  team_code: string;

  @ApiProperty({ description: 'false when the user was not a member (nothing changed)' })
  removed: boolean;
}

export class UserTeamEntry {
  @ApiProperty()
  team_code: string;

  @ApiProperty()
  org_code: string;

  @ApiProperty({ type: [String] })
  roles: string[];
}

export class ExternalGroupsError {
  @ApiProperty({ enum: ['DIRECTORY_UNAVAILABLE', 'DIRECTORY_CREDENTIALS_REJECTED'], description: 'Why the directory could not be read' })
  code: string;

  @ApiProperty()
  detail: string;
}

export class UserTeamsResponse {
  @ApiProperty()
  user_id: string;

  @ApiProperty({ type: [UserTeamEntry], description: 'Internal memberships, from the database, sorted by team code' })
  teams: UserTeamEntry[];

  @ApiProperty({
    type: [String],
    description:
      'Groups (cn) of the user in the tenant\'s directory (`_ldap_config`), sorted: groups with `member=<user DN>` or `memberUid=<user id>`. ' +
      'Empty when no directory is configured, when the directory does not know the user, or when it cannot be read (then `external_groups_error` is present).',
  })
  external_groups: string[];

  @ApiPropertyOptional({
    type: ExternalGroupsError,
    description:
      'Present only when the directory is configured but could not be read (unreachable, timed out, or it rejected the bind credentials). ' +
      'The call still answers 200 with the teams from the database and `external_groups: []`.',
  })
  external_groups_error?: ExternalGroupsError;
}

export class BulkUserTeamRequest {
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_BULK_ITEMS, uniqueItems: true, description: 'Team codes; each team must exist' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_ITEMS)
  @ArrayUnique()
  @IsIdentifier(MAX_CODE_LENGTH, true)
  team_code_list: string[];

  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_BULK_ITEMS, uniqueItems: true, description: 'User ids; each user must exist' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_ITEMS)
  @ArrayUnique()
  @IsIdentifier(MAX_USER_ID_LENGTH, true)
  user_id_list: string[];

  @OptionalIdpId()
  idp_id?: string;
}

export class UserTeamPair {
  @ApiProperty()
  user_id: string;

  @ApiProperty()
  team_code: string;
}

export class BulkAddResponse {
  @ApiProperty({ type: [UserTeamPair], description: 'Memberships created by this call' })
  added: UserTeamPair[];

  @ApiProperty({ type: [UserTeamPair], description: 'Pairs that already were memberships (unchanged)' })
  already_member: UserTeamPair[];

  @ApiProperty({ description: 'Number of pairs left unchanged (= already_member.length)' })
  unchanged_count: number;
}

export class BulkRemoveResponse {
  @ApiProperty({ type: [UserTeamPair], description: 'Memberships deleted by this call' })
  removed: UserTeamPair[];

  @ApiProperty({ type: [UserTeamPair], description: 'Pairs that were not memberships (unchanged)' })
  not_member: UserTeamPair[];

  @ApiProperty({ description: 'Number of pairs left unchanged (= not_member.length)' })
  unchanged_count: number;
}

export class UnknownTeamsOrUsersProblem {
  @ApiProperty({ example: 404 })
  status: number;

  @ApiProperty({ example: 'TEAMS_OR_USERS_NOT_FOUND' })
  code: string;

  @ApiProperty()
  type: string;

  @ApiProperty()
  title: string;

  @ApiProperty()
  detail: string;

  @ApiProperty({ type: [String], description: 'Team codes of the request that do not exist in the tenant' })
  unknown_teams: string[];

  @ApiProperty({ type: [String], description: 'User ids of the request that do not exist in the tenant' })
  unknown_users: string[];
}
