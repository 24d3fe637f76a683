import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { PageQuery } from '@lib/http';
import { CreateTeamRequest, TeamPage, TeamResponse } from './dto/team.dto';
import { CreateUserRequest, UserPage, UserResponse } from './dto/user.dto';
import { TeamsService } from './teams.service';

/** Teams, orgs and users need a way in before they can be joined (docs/interface.md#teams-users-and-memberships). System Admin only. */
@ApiTags('teams and users')
@SystemAdminOnly()
@Controller('authorization/v2')
export class TeamsController {
  constructor(private readonly service: TeamsService) {}

  @Post('teams')
  @ApiOperation({
    summary: 'Create a team',
    description:
      "Creates a team of the caller's tenant with its roles and optional external reference. The org is created when it does not exist; " +
      'roles are free strings (at most 64 characters) whose role records are created when missing. ' +
      '409 `TEAM_CODE_TAKEN` when the team code is used, 409 `EXTERNAL_REF_IN_USE` when the external reference belongs to another team.',
  })
  @ApiCreatedResponse({ type: TeamResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`' })
  @ApiConflictResponse({ description: '`TEAM_CODE_TAKEN` or `EXTERNAL_REF_IN_USE`' })
  createTeam(@CurrentPrincipal() principal: Principal, @Body() body: CreateTeamRequest): Promise<TeamResponse> {
    return this.service.createTeam(principal, body);
  }

  @Get('teams')
  @ApiOperation({ summary: 'List the teams of the tenant (cursor pagination)' })
  @ApiOkResponse({ type: TeamPage })
  listTeams(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<TeamPage> {
    return this.service.listTeams(principal.tenantId, query);
  }

  @Get('teams/:team_code')
  @ApiOperation({ summary: 'Read one team' })
  @ApiParam({ name: 'team_code', description: 'Team code (URL-encoded)' })
  @ApiOkResponse({ type: TeamResponse })
  @ApiNotFoundResponse({ description: '`TEAM_NOT_FOUND`' })
  getTeam(@CurrentPrincipal() principal: Principal, @Param('team_code') teamCode: string): Promise<TeamResponse> {
    return this.service.getTeam(principal.tenantId, teamCode);
  }

  @Get('users')
  @ApiOperation({
    summary: 'List the users of the tenant (cursor pagination)',
    description: 'Users are provisioned just in time by their first valid token, or added beforehand with POST /authorization/v2/users.',
  })
  @ApiOkResponse({ type: UserPage })
  listUsers(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<UserPage> {
    return this.service.listUsers(principal.tenantId, query);
  }

  @Post('users')
  @ApiOperation({
    summary: 'Add a user before its first login',
    description:
      "A user is its subject as one IdP of the tenant asserts it: `idp_id` (the caller's IdP when omitted) names the IdP. " +
      '409 `USER_EXISTS` when the user of that IdP is already known.',
  })
  @ApiCreatedResponse({ type: UserResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`' })
  @ApiConflictResponse({ description: '`USER_EXISTS`' })
  createUser(@CurrentPrincipal() principal: Principal, @Body() body: CreateUserRequest): Promise<UserResponse> {
    return this.service.createUser(principal, body);
  }
}
