import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { ServiceCategoryMapping } from './schemas/service-category-mapping.schema';

export interface UpsertCounts {
  upserted: number;
  matched: number;
}

@Injectable()
export class ServiceCategoryRepository extends TenantRepository<ServiceCategoryMapping> {
  constructor(@InjectModel(ServiceCategoryMapping.name) model: Model<ServiceCategoryMapping>) {
    super(model);
  }

  /** One round trip for the whole list; the tenant is part of every filter, so of every inserted record. */
  async upsertMany(tenantId: string, providerName: string, items: { assetType: string; serviceCategory: string }[]): Promise<UpsertCounts> {
    if (!tenantId) throw new Error('tenantId is required');
    const result = await this.model.bulkWrite(
      items.map(({ assetType, serviceCategory }) => ({
        updateOne: { filter: { tenantId, providerName, assetType }, update: { $set: { serviceCategory } }, upsert: true },
      })),
      { ordered: false, ...this.limits('bulk') },
    );
    return { upserted: result.upsertedCount, matched: result.matchedCount };
  }
}
