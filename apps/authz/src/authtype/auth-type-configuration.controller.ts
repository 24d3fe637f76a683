import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, type Principal, SystemAdminOnly } from '@lib/auth';
import { AuthTypeConfigurationService } from './auth-type-configuration.service';
import {
  AuthTypeConfigurationResponse,
  CreateAuthTypeConfigurationRequest,
  ListAuthTypeConfigurationsQuery,
  UpdateAuthTypeConfigurationRequest,
} from './dto/auth-type-configuration.dto';

const NOT_FOUND = 'AUTHTYPE_NOT_FOUND: no configuration with this id in the caller’s tenant (also for a malformed id)';

@ApiTags('authtype')
@SystemAdminOnly()
@Controller('core/authorization/v1')
export class AuthTypeConfigurationController {
  constructor(private readonly configurations: AuthTypeConfigurationService) {}

  @Post('authtype/configurations')
  @ApiOperation({
    summary: 'Create an auth-type configuration',
    description:
      'Internal body `{ name, auth_type: "internal" }`; ' +
      'hybrid body `{ name, auth_type: "hybrid", initial_system_admin_team_external_ref_id, initial_system_admin_team_code?, ' +
      'initial_system_admin_org_code? }`. For hybrid a new team is created with the team code (generated as `ADMIN-<name>-<random>` ' +
      'when omitted), the role `System Admin` and the external reference; the org (default `admin_org`, see the field) is created ' +
      'when missing. The answer is the payload with both codes resolved, plus `id`. Nothing is left behind when the call fails.',
  })
  @ApiCreatedResponse({ type: AuthTypeConfigurationResponse })
  @ApiBadRequestResponse({ description: 'VALIDATION_FAILED: missing/extra fields for the auth type, lengths, characters' })
  @ApiConflictResponse({
    description:
      'AUTHTYPE_NAME_TAKEN (case-insensitive), AUTHTYPE_INTERNAL_EXISTS (only ' +
      'one internal), EXTERNAL_REF_IN_USE (a team has it), TEAM_CODE_TAKEN',
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateAuthTypeConfigurationRequest,
  ): Promise<AuthTypeConfigurationResponse> {
    return this.configurations.create(principal, body);
  }

  @Get('authtype/configurations')
  @ApiOperation({
    summary: 'List auth-type configurations',
    description: '`name` matches exactly, case-insensitively; `auth_type` filters by type.',
  })
  @ApiOkResponse({ type: [AuthTypeConfigurationResponse] })
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListAuthTypeConfigurationsQuery,
  ): Promise<AuthTypeConfigurationResponse[]> {
    return this.configurations.list(principal.tenantId, query);
  }

  @Get('authtype/configurations/:id')
  @ApiOperation({ summary: 'Read one auth-type configuration' })
  @ApiParam({ name: 'id', description: 'Configuration id' })
  @ApiOkResponse({ type: AuthTypeConfigurationResponse })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<AuthTypeConfigurationResponse> {
    return this.configurations.get(principal.tenantId, id);
  }

  @Patch('configuration/authtype/:id')
  @ApiOperation({
    summary: 'Update an auth-type configuration',
    description:
      'Internal body `{ name }`; hybrid body `{ name?, initial_system_admin_team_external_ref_id? }` (at least one). ' +
      "When the configuration is mapped to an IdP, that IdP must be the caller's token IdP (403 IDP_MISMATCH). " +
      'A new name stays unique, case-insensitively (409 AUTHTYPE_NAME_TAKEN).\n\nHybrid external reference: ' +
      "whenever `initial_system_admin_team_external_ref_id` is given, the caller's token (access token, i.e. " +
      'the groups of its SAML assertion or refresh token) must carry groups (403 TOKEN_GROUPS_MISSING); the new reference ' +
      'must be one of them (403 EXTERNAL_REF_NOT_IN_TOKEN_GROUPS), so the caller keeps access after the move; and at least ' +
      'one token group must be, in the state *before* the change, the external reference of a team holding `System Admin` (403 ' +
      'NO_SYSTEM_ADMIN_TEAM_FOR_GROUPS), i.e. the caller must be a hybrid System Admin now. The reference then moves on the ' +
      "configuration's System Admin team (409 EXTERNAL_REF_IN_USE when another team holds it). Auth-type caches are cleared.",
  })
  @ApiParam({ name: 'id', description: 'Configuration id' })
  @ApiOkResponse({ type: AuthTypeConfigurationResponse })
  @ApiBadRequestResponse({
    description: 'VALIDATION_FAILED: a field not allowed for the configuration’s auth type, or nothing to change',
  })
  @ApiForbiddenResponse({
    description:
      'IDP_MISMATCH, TOKEN_GROUPS_MISSING, EXTERNAL_REF_NOT_IN_TOKEN_GROUPS, NO_SYSTEM_ADMIN_TEAM_FOR_GROUPS, SYSTEM_ADMIN_REQUIRED',
  })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @ApiConflictResponse({ description: 'AUTHTYPE_NAME_TAKEN, EXTERNAL_REF_IN_USE' })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateAuthTypeConfigurationRequest,
  ): Promise<AuthTypeConfigurationResponse> {
    return this.configurations.update(principal, id, body);
  }

  @Delete('authtype/configurations/:auth_type_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an auth-type configuration (switch to internal)',
    description:
      'The IdP mapping using the configuration is deleted too (the IdP reads as `internal` in the next token). ' +
      'When the configuration was hybrid, the caller is placed into team `INITIAL-SETUP-ADMIN` of org `admin_org` ' +
      'with `System Admin`. The System Admin team of a hybrid configuration is kept (with its external reference). ' +
      "When the configuration is mapped, the caller's token IdP must be the mapped IdP (403 IDP_MISMATCH).",
  })
  @ApiParam({ name: 'auth_type_id', description: 'Configuration id' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiForbiddenResponse({ description: 'IDP_MISMATCH, SYSTEM_ADMIN_REQUIRED' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  remove(@CurrentPrincipal() principal: Principal, @Param('auth_type_id') id: string): Promise<void> {
    return this.configurations.remove(principal, id);
  }
}
