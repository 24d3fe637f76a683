import { Body, Controller, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { ArrayBodyPipe } from './array-body.pipe';
import {
  PatchServiceCategoryRequest,
  ProviderNameQuery,
  ServiceCategoryMappingDto,
  ServiceCategoryPatchResponse,
  ServiceCategoryQuery,
  ServiceCategoryUpsertResponse,
} from './dto/service-category.dto';
import { ApiInvalid, ApiNotFoundAs401, ApiUnauthenticated } from './provider-metadata.docs';
import { MAX_ITEMS_PER_POST } from './provider-metadata.problems';
import { ServiceCategoriesService } from './service-categories.service';

@ApiTags('provider metadata')
@Controller('api/costasset/v1/providermetadata/service_categories')
export class ServiceCategoriesController {
  constructor(private readonly service: ServiceCategoriesService) {}

  @Get()
  @AnyMember()
  @ApiOperation({
    summary: 'Service-category mappings of a provider',
    description:
      'With `assetType`, the mapping of that asset type; without it (or empty), every mapping of the provider, sorted by asset type.',
  })
  @ApiOkResponse({ type: [ServiceCategoryMappingDto] })
  @ApiInvalid('`VALIDATION_FAILED`')
  @ApiNotFoundAs401()
  list(@CurrentPrincipal() principal: Principal, @Query() query: ServiceCategoryQuery): Promise<ServiceCategoryMappingDto[]> {
    return this.service.list(principal.tenantId, query.providerName, query.assetType);
  }

  @Post()
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Create or update service-category mappings (System Admin)',
    description:
      `An array of 1 to ${MAX_ITEMS_PER_POST} mappings, upserted by (providerName, assetType): ` +
      'posting the same list again changes nothing. Every item must carry the `providerName` of the query ' +
      '(400 `PROVIDER_NAME_MISMATCH`), an asset type appears once per list (400 `DUPLICATE_MAPPING_IN_BODY`). ' +
      'Answers how many mappings were created (`upserted`) and overwritten (`updated`), with the posted mappings as stored.',
  })
  @ApiBody({ type: [ServiceCategoryMappingDto] })
  @ApiOkResponse({ type: ServiceCategoryUpsertResponse })
  @ApiInvalid('`VALIDATION_FAILED` (fields as `[index].field`), `PROVIDER_NAME_MISMATCH`, `DUPLICATE_MAPPING_IN_BODY`')
  @ApiUnauthenticated()
  upsert(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ProviderNameQuery,
    @Body(new ArrayBodyPipe(ServiceCategoryMappingDto, MAX_ITEMS_PER_POST)) items: ServiceCategoryMappingDto[],
  ): Promise<ServiceCategoryUpsertResponse> {
    return this.service.upsert(principal.tenantId, query.providerName, items);
  }

  @Patch()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Change the service category of mappings (System Admin)',
    description:
      "Sets `serviceCategory` on the provider's mappings selected by `assetType` (that mapping), `fromServiceCategory` " +
      '(every mapping holding that category: renames it) or both (that mapping, only while it holds `fromServiceCategory`). ' +
      'At least one selector is required (400 `SELECTOR_REQUIRED`).',
  })
  @ApiOkResponse({ type: ServiceCategoryPatchResponse })
  @ApiInvalid('`VALIDATION_FAILED`, `SELECTOR_REQUIRED`')
  @ApiNotFoundAs401()
  patch(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ProviderNameQuery,
    @Body() body: PatchServiceCategoryRequest,
  ): Promise<ServiceCategoryPatchResponse> {
    return this.service.patch(principal.tenantId, query.providerName, body);
  }
}
