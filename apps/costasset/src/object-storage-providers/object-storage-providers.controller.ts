import { Body, Controller, Get, Param, Post } from '@nestjs/common';
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
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { CreateObjectStorageProviderRequest, ObjectStorageProviderResponse } from './dto/object-storage-provider.dto';
import { ObjectStorageProvidersService } from './object-storage-providers.service';

@ApiTags('object-storage providers')
@Controller('api/costasset/v1/providers/object-storage')
export class ObjectStorageProvidersController {
  constructor(private readonly service: ObjectStorageProvidersService) {}

  @Post()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Create an object-storage provider (System Admin)',
    description: 'The provider code is unique within the tenant.',
  })
  @ApiCreatedResponse({ type: ObjectStorageProviderResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`' })
  @ApiConflictResponse({ description: '`PROVIDER_CODE_TAKEN`' })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateObjectStorageProviderRequest,
  ): Promise<ObjectStorageProviderResponse> {
    return this.service.create(principal.tenantId, body);
  }

  @Get()
  @AnyMember()
  @ApiOperation({ summary: 'List the object-storage providers of the tenant, sorted by code (an empty list when there are none)' })
  @ApiOkResponse({ type: [ObjectStorageProviderResponse] })
  list(@CurrentPrincipal() principal: Principal): Promise<ObjectStorageProviderResponse[]> {
    return this.service.list(principal.tenantId);
  }

  @Get(':providerCode')
  @AnyMember()
  @ApiOperation({ summary: 'Read one object-storage provider by its code' })
  @ApiParam({ name: 'providerCode', description: 'The provider code' })
  @ApiOkResponse({ type: ObjectStorageProviderResponse })
  @ApiNotFoundResponse({ description: '`PROVIDER_NOT_FOUND`' })
  get(@CurrentPrincipal() principal: Principal, @Param('providerCode') providerCode: string): Promise<ObjectStorageProviderResponse> {
    return this.service.get(principal.tenantId, providerCode);
  }
}
