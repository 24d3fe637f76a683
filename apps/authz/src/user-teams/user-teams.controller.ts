import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SignedIn, SystemAdminOnly } from '@lib/auth';
import {
  BulkAddResponse,
  BulkRemoveResponse,
  BulkUserTeamRequest,
  UnknownTeamsOrUsersProblem,
  UserTeamAddResponse,
  UserTeamRemoveResponse,
  UserTeamRequest,
  UserTeamsQuery,
  UserTeamsResponse,
} from './dto/user-team.dto';
import { UserTeamsService } from './user-teams.service';

const BULK_NOT_FOUND = {
  description:
    '`TEAMS_OR_USERS_NOT_FOUND`: at least one team or user does not exist in the tenant; nothing was changed. ' +
    'The problem lists `unknown_teams` and `unknown_users`.',
  content: { 'application/problem+json': { schema: { $ref: getSchemaPath(UnknownTeamsOrUsersProblem) } } },
};

/**
 * User-team membership (docs/interface.md#teams-users-and-memberships). A user is (tenant, IdP, subject): each
 * operation takes an optional `idp_id` naming the IdP of its users, the caller's IdP by default.
 */
@ApiTags('user-team')
@ApiExtraModels(UnknownTeamsOrUsersProblem)
@Controller('authorization/v2')
export class UserTeamsController {
  constructor(private readonly service: UserTeamsService) {}

  @Post('userteam')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Add a user to a team (9)', description: 'Idempotent: `added` is false when the user already was a member.' })
  @ApiOkResponse({ type: UserTeamAddResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`' })
  @ApiNotFoundResponse({ description: '`TEAM_NOT_FOUND` or `USER_NOT_FOUND` (checked in that order)' })
  add(@CurrentPrincipal() principal: Principal, @Body() body: UserTeamRequest): Promise<UserTeamAddResponse> {
    return this.service.add(principal, body);
  }

  @Post('userteam/remove')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Remove a user from a team (10)',
    description: 'Idempotent: `removed` is false when the user was not a member.',
  })
  @ApiOkResponse({ type: UserTeamRemoveResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`' })
  @ApiNotFoundResponse({ description: '`TEAM_NOT_FOUND` or `USER_NOT_FOUND`' })
  remove(@CurrentPrincipal() principal: Principal, @Body() body: UserTeamRequest): Promise<UserTeamRemoveResponse> {
    return this.service.remove(principal, body);
  }

  @Get('userteam/:userid')
  @SignedIn()
  @ApiOperation({
    summary: 'Teams and external groups of a user (11)',
    description:
      "The user is of the IdP `idp_id` (the caller's IdP when omitted). " +
      'A System Admin may read any user of the tenant; any other caller only itself (403 `USER_TEAMS_FORBIDDEN`). ' +
      '`teams` are the internal memberships from the database. `external_groups` are the cn of the directory groups listing the user ' +
      '(`member=<user DN>` or `memberUid=<user id>` under the base of `_ldap_config`). No directory configured: `external_groups: []`. ' +
      'Directory unreachable, timed out, or refusing the bind credentials: still 200, with `external_groups: []` and ' +
      '`external_groups_error: { code: DIRECTORY_UNAVAILABLE | DIRECTORY_CREDENTIALS_REJECTED, detail }`.',
  })
  @ApiParam({ name: 'userid', description: 'User id (URL-encoded)' })
  @ApiOkResponse({ type: UserTeamsResponse })
  @ApiForbiddenResponse({ description: '`USER_TEAMS_FORBIDDEN`: not a System Admin and not the user itself' })
  @ApiNotFoundResponse({ description: '`USER_NOT_FOUND`' })
  read(
    @CurrentPrincipal() principal: Principal,
    @Param('userid') userId: string,
    @Query() query: UserTeamsQuery,
  ): Promise<UserTeamsResponse> {
    return this.service.read(principal, userId, query);
  }

  @Post('users/teams')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Add every listed user to every listed team (12)',
    description:
      'All or nothing: when any team or user is unknown, 404 `TEAMS_OR_USERS_NOT_FOUND` and nothing changes. Otherwise every pair is ' +
      'upserted in one bulk write (idempotent). Pairs are listed in the order of `user_id_list`, then `team_code_list`.',
  })
  @ApiOkResponse({ type: BulkAddResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`: each list needs 1 to 500 unique, non-empty strings' })
  @ApiNotFoundResponse(BULK_NOT_FOUND)
  bulkAdd(@CurrentPrincipal() principal: Principal, @Body() body: BulkUserTeamRequest): Promise<BulkAddResponse> {
    return this.service.bulkAdd(principal, body);
  }

  @Post('users/teams/remove')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Remove every listed user from every listed team (13)',
    description: 'All or nothing like the bulk add; the existing memberships among the pairs are deleted in one bulk write (idempotent).',
  })
  @ApiOkResponse({ type: BulkRemoveResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`: each list needs 1 to 500 unique, non-empty strings' })
  @ApiNotFoundResponse(BULK_NOT_FOUND)
  bulkRemove(@CurrentPrincipal() principal: Principal, @Body() body: BulkUserTeamRequest): Promise<BulkRemoveResponse> {
    return this.service.bulkRemove(principal, body);
  }
}
