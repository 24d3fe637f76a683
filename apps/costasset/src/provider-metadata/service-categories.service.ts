import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import {
  PatchServiceCategoryRequest,
  ServiceCategoryMappingDto,
  ServiceCategoryPatchResponse,
  ServiceCategoryUpsertResponse,
} from './dto/service-category.dto';
import { repeatedIndexes } from './duplicates';
import { ProviderMetadataCache } from './provider-metadata.cache';
import { ProviderMetadataProblems } from './provider-metadata.problems';
import { ServiceCategoryMapping } from './schemas/service-category-mapping.schema';
import { ServiceCategoryRepository } from './service-category.repository';

const BY_ASSET_TYPE = { sort: { assetType: 1 as const } };

const toDto = ({ providerName, serviceCategory, assetType }: ServiceCategoryMapping): ServiceCategoryMappingDto => ({
  providerName,
  serviceCategory,
  assetType,
});

@Injectable()
export class ServiceCategoriesService {
  constructor(
    private readonly repository: ServiceCategoryRepository,
    private readonly cache: ProviderMetadataCache,
  ) {}

  /** The mapping of one asset type, or every mapping of the provider. */
  async list(tenantId: string, providerName: string, assetType?: string): Promise<ServiceCategoryMappingDto[]> {
    const records = await this.repository.find(tenantId, { providerName, ...(assetType ? { assetType } : {}) }, BY_ASSET_TYPE);
    if (records.length === 0) throw ProviderMetadataProblems.notFound('service-category mapping');
    return records.map(toDto);
  }

  /** Upsert by (provider, asset type): posting the same list twice changes nothing the second time. */
  async upsert(tenantId: string, providerName: string, items: ServiceCategoryMappingDto[]): Promise<ServiceCategoryUpsertResponse> {
    const mismatched = items.flatMap((item, index) => (item.providerName === providerName ? [] : [index]));
    if (mismatched.length > 0) throw ProviderMetadataProblems.providerNameMismatch(mismatched);
    const repeated = repeatedIndexes(items, (item) => item.assetType);
    if (repeated.length > 0) throw ProviderMetadataProblems.duplicateItems(repeated, 'assetType');

    const counts = await this.repository.upsertMany(tenantId, providerName, items);
    await this.cache.changed(tenantId, [providerName]);
    const stored = await this.repository.find(
      tenantId,
      { providerName, assetType: { $in: items.map((item) => item.assetType) } },
      BY_ASSET_TYPE,
    );
    return { upserted: counts.upserted, updated: counts.matched, items: stored.map(toDto) };
  }

  /**
   * Sets `serviceCategory` on the provider's mappings selected by `assetType` (one mapping),
   * `fromServiceCategory` (renames a category across the provider) or both (that mapping, only
   * while it still holds the old category). At least one selector is required.
   */
  async patch(tenantId: string, providerName: string, body: PatchServiceCategoryRequest): Promise<ServiceCategoryPatchResponse> {
    const { serviceCategory, assetType, fromServiceCategory } = body;
    if (!assetType && !fromServiceCategory) throw ProviderMetadataProblems.selectorRequired();
    const selector = {
      providerName,
      ...(assetType ? { assetType } : {}),
      ...(fromServiceCategory ? { serviceCategory: fromServiceCategory } : {}),
    };
    const selected = await this.repository.find(tenantId, selector, {}, { _id: 1 });
    if (selected.length === 0) throw ProviderMetadataProblems.notFound('service-category mapping');

    const ids: Types.ObjectId[] = selected.map((record) => record._id);
    await this.repository.updateMany(tenantId, { _id: { $in: ids } }, { $set: { serviceCategory } });
    await this.cache.changed(tenantId, [providerName]);
    const stored = await this.repository.find(tenantId, { _id: { $in: ids } }, BY_ASSET_TYPE);
    return { updated: ids.length, items: stored.map(toDto) };
  }
}
