import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray } from 'class-validator';
import { IsIdentifier, MAX_CODE_LENGTH, MAX_USER_ID_LENGTH, OptionalIdpId } from './identifiers';

export const MAX_BULK_ITEMS = 500;

export class UserTeamRequest {
  /** An existing user of the tenant */
  @ApiProperty({ maxLength: MAX_USER_ID_LENGTH })
  @IsIdentifier(MAX_USER_ID_LENGTH)
  user_id: string;

  /** An existing team of the tenant */
  @ApiProperty({ maxLength: MAX_CODE_LENGTH })
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
  user_id: string;

  team_code: string;

  /** false when the user already was a member (nothing changed) */
  added: boolean;
}

export class UserTeamRemoveResponse {
  user_id: string;

  team_code: string;

  /** false when the user was not a member (nothing changed) */
  removed: boolean;
}

export class UserTeamEntry {
  team_code: string;

  org_code: string;

  roles: string[];
}

export class ExternalGroupsError {
  /** Why the directory could not be read */
  @ApiProperty({ enum: ['DIRECTORY_UNAVAILABLE', 'DIRECTORY_CREDENTIALS_REJECTED'] })
  code: string;

  detail: string;
}

export class UserTeamsResponse {
  user_id: string;

  /** Internal memberships, from the database, sorted by team code */
  teams: UserTeamEntry[];

  /**
   * Groups (cn) of the user in the tenant's directory (`_ldap_config`), sorted: groups with `member=<user DN>` or `memberUid=<user id>`.
   * Empty when no directory is configured, when the directory does not know the user, or when it cannot be read (then
   * `external_groups_error` is present).
   */
  external_groups: string[];

  /**
   * Present only when the directory is configured but could not be read (unreachable, timed out, or it rejected the bind credentials). The
   * call still answers 200 with the teams from the database and `external_groups: []`.
   */
  external_groups_error?: ExternalGroupsError;
}

export class BulkUserTeamRequest {
  /** Team codes; each team must exist */
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_BULK_ITEMS, uniqueItems: true })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_ITEMS)
  @ArrayUnique()
  @IsIdentifier(MAX_CODE_LENGTH, true)
  team_code_list: string[];

  /** User ids; each user must exist */
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_BULK_ITEMS, uniqueItems: true })
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
  user_id: string;

  team_code: string;
}

export class BulkAddResponse {
  /** Memberships created by this call */
  added: UserTeamPair[];

  /** Pairs that already were memberships (unchanged) */
  already_member: UserTeamPair[];

  /** Number of pairs left unchanged (= already_member.length) */
  unchanged_count: number;
}

export class BulkRemoveResponse {
  /** Memberships deleted by this call */
  removed: UserTeamPair[];

  /** Pairs that were not memberships (unchanged) */
  not_member: UserTeamPair[];

  /** Number of pairs left unchanged (= not_member.length) */
  unchanged_count: number;
}

export class UnknownTeamsOrUsersProblem {
  /**
   *
   * @example 404
   */
  status: number;

  /**
   *
   * @example "TEAMS_OR_USERS_NOT_FOUND"
   */
  code: string;

  type: string;

  title: string;

  detail: string;

  /** Team codes of the request that do not exist in the tenant */
  unknown_teams: string[];

  /** User ids of the request that do not exist in the tenant */
  unknown_users: string[];
}
