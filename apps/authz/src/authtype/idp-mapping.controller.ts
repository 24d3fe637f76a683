import { Body, Controller, Delete, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
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
import { CreateIdpMappingRequest, IdpMappingResponse, UpdateIdpMappingRequest } from './dto/idp-mapping.dto';
import { IdpMappingService } from './idp-mapping.service';

const VERIFY =
  'For a hybrid configuration its System Admin team, org and external reference are ' +
  'checked and created when missing (409 EXTERNAL_REF_IN_USE when another team holds the ' +
  'reference). Auth-type caches are cleared, so the next token carries the new auth type.';

@ApiTags('authtype')
@SystemAdminOnly()
@Controller('core/authorization/v1/configuration/idp')
export class IdpMappingController {
  constructor(private readonly mappings: IdpMappingService) {}

  @Post()
  @ApiOperation({
    summary: 'Map an IdP to an auth-type configuration',
    description:
      `\`idp_id\` is taken from the caller's corelite-token when omitted and must equal it ` +
      `when given (403 IDP_MISMATCH). One mapping per IdP and per configuration. ${VERIFY}`,
  })
  @ApiCreatedResponse({ type: IdpMappingResponse })
  @ApiForbiddenResponse({ description: 'IDP_MISMATCH, SYSTEM_ADMIN_REQUIRED' })
  @ApiNotFoundResponse({ description: 'AUTHTYPE_NOT_FOUND' })
  @ApiConflictResponse({ description: 'IDP_ALREADY_MAPPED, AUTHTYPE_ALREADY_MAPPED, EXTERNAL_REF_IN_USE' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateIdpMappingRequest): Promise<IdpMappingResponse> {
    return this.mappings.create(principal, body);
  }

  @Patch(':idp_id')
  @ApiOperation({
    summary: 'Map an IdP to another auth-type configuration',
    description: `\`idp_id\` must be the caller's token IdP (403 IDP_MISMATCH). ${VERIFY}`,
  })
  @ApiParam({ name: 'idp_id', description: "The IdP; must be the caller's token IdP" })
  @ApiOkResponse({ type: IdpMappingResponse })
  @ApiForbiddenResponse({ description: 'IDP_MISMATCH, SYSTEM_ADMIN_REQUIRED' })
  @ApiNotFoundResponse({ description: 'IDP_MAPPING_NOT_FOUND, AUTHTYPE_NOT_FOUND' })
  @ApiConflictResponse({ description: 'AUTHTYPE_ALREADY_MAPPED, EXTERNAL_REF_IN_USE, MAPPING_CHANGED_CONCURRENTLY' })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('idp_id') idpId: string,
    @Body() body: UpdateIdpMappingRequest,
  ): Promise<IdpMappingResponse> {
    return this.mappings.update(principal, idpId, body);
  }

  @Delete(':idp_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an IdP mapping (switch the IdP to internal)',
    description:
      "`idp_id` must be the caller's token IdP (403 IDP_MISMATCH). The mapping to the internal configuration (409 " +
      'INTERNAL_MAPPING_UNDELETABLE) and the last mapping of the tenant (409 LAST_MAPPING_UNDELETABLE) cannot be deleted. ' +
      'When the mapping was hybrid, the caller is placed into team `INITIAL-SETUP-ADMIN` of org `admin_org` with `System Admin`.',
  })
  @ApiParam({ name: 'idp_id', description: "The IdP; must be the caller's token IdP" })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiForbiddenResponse({ description: 'IDP_MISMATCH, SYSTEM_ADMIN_REQUIRED' })
  @ApiNotFoundResponse({ description: 'IDP_MAPPING_NOT_FOUND' })
  @ApiConflictResponse({ description: 'INTERNAL_MAPPING_UNDELETABLE, LAST_MAPPING_UNDELETABLE, MAPPING_CHANGED_CONCURRENTLY' })
  remove(@CurrentPrincipal() principal: Principal, @Param('idp_id') idpId: string): Promise<void> {
    return this.mappings.remove(principal, idpId);
  }
}
