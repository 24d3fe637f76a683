import { Body, Controller, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { ArrayBodyPipe } from './array-body.pipe';
import {
  LocationFieldsDto,
  LocationMappingDto,
  LocationPatchResponse,
  LocationsQuery,
  LocationUpsertResponse,
  OptionalProviderNameQuery,
  PatchLocationsQuery,
} from './dto/location.dto';
import { LocationsService } from './locations.service';
import { ApiInvalid, ApiNotFoundAs401, ApiUnauthenticated } from './provider-metadata.docs';
import { MAX_ITEMS_PER_POST } from './provider-metadata.problems';

@ApiTags('provider metadata')
@Controller('api/costasset/v1/providermetadata/locations')
export class LocationsController {
  constructor(private readonly service: LocationsService) {}

  @Get()
  @AnyMember()
  @ApiOperation({
    summary: 'Location mappings',
    description:
      'The location mappings of `providerName`, or of every provider when it is absent, sorted by provider and region code. ' +
      '`assetType` is accepted for existing clients and ignored: a location mapping has no asset type.',
  })
  @ApiOkResponse({ type: [LocationMappingDto] })
  @ApiInvalid('`VALIDATION_FAILED`')
  @ApiNotFoundAs401()
  list(@CurrentPrincipal() principal: Principal, @Query() query: LocationsQuery): Promise<LocationMappingDto[]> {
    return this.service.list(principal.tenantId, query.providerName);
  }

  @Post()
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Create or replace location mappings (System Admin)',
    description:
      `An array of 1 to ${MAX_ITEMS_PER_POST} mappings, upserted by (providerName, providerRegionCode): ` +
      'each item replaces the stored mapping (location fields it leaves out are removed), so posting the same list again ' +
      'changes nothing. When the `providerName` query is given every item must carry it (400 `PROVIDER_NAME_MISMATCH`); ' +
      'a key appears once per list (400 `DUPLICATE_MAPPING_IN_BODY`).',
  })
  @ApiBody({ type: [LocationMappingDto] })
  @ApiOkResponse({ type: LocationUpsertResponse })
  @ApiInvalid('`VALIDATION_FAILED` (fields as `[index].field`), `PROVIDER_NAME_MISMATCH`, `DUPLICATE_MAPPING_IN_BODY`')
  @ApiUnauthenticated()
  upsert(
    @CurrentPrincipal() principal: Principal,
    @Query() query: OptionalProviderNameQuery,
    @Body(new ArrayBodyPipe(LocationMappingDto, MAX_ITEMS_PER_POST)) items: LocationMappingDto[],
  ): Promise<LocationUpsertResponse> {
    return this.service.upsert(principal.tenantId, query.providerName, items);
  }

  @Patch()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Change location fields (System Admin)',
    description:
      'Sets the given fields (at least one, 400 `NOTHING_TO_UPDATE`) on the mapping of `providerRegionCode`, ' +
      'or on every location mapping of the provider when it is absent. Fields left out keep their values.',
  })
  @ApiOkResponse({ type: LocationPatchResponse })
  @ApiInvalid('`VALIDATION_FAILED`, `NOTHING_TO_UPDATE`')
  @ApiNotFoundAs401()
  patch(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PatchLocationsQuery,
    @Body() body: LocationFieldsDto,
  ): Promise<LocationPatchResponse> {
    return this.service.patch(principal.tenantId, query.providerName, query.providerRegionCode, body);
  }
}
