import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { LOCATION_FIELDS, LocationFields } from './location-fields';
import { LocationMappingRecord } from './schemas/location-mapping.schema';
import type { UpsertCounts } from './service-category.repository';

export interface LocationItem extends LocationFields {
  providerName: string;
  providerRegionCode: string;
}

@Injectable()
export class LocationRepository extends TenantRepository<LocationMappingRecord> {
  constructor(@InjectModel(LocationMappingRecord.name) model: Model<LocationMappingRecord>) {
    super(model);
  }

  /** The posted item becomes the stored mapping: location fields it leaves out are removed. */
  async upsertMany(tenantId: string, items: LocationItem[]): Promise<UpsertCounts> {
    if (!tenantId) throw new Error('tenantId is required');
    const result = await this.model.bulkWrite(
      items.map((item) => {
        const set: LocationFields = {};
        const unset: Partial<Record<keyof LocationFields, 1>> = {};
        for (const field of LOCATION_FIELDS) {
          if (item[field] !== undefined) set[field] = item[field];
          else unset[field] = 1;
        }
        const update = Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set };
        return {
          updateOne: {
            filter: { tenantId, providerName: item.providerName, providerRegionCode: item.providerRegionCode },
            update,
            upsert: true,
          },
        };
      }),
      { ordered: false, ...this.limits('bulk') },
    );
    return { upserted: result.upsertedCount, matched: result.matchedCount };
  }
}
