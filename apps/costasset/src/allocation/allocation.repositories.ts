import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '@lib/core';
import { TenantRepository } from '@lib/persistence';
import { ALLOCATION_SETTINGS, AllocationSettings, DIMENSION_VERSION, DimensionVersion } from './schemas/allocation-settings.schema';

const EMPTY: Omit<AllocationSettings, 'tenantId'> = {
  revision: 0,
  rollupRevision: 0,
  tagKeys: [],
  dimensions: [],
  splits: [],
  providers: [],
};

@Injectable()
export class AllocationSettingsRepository extends TenantRepository<AllocationSettings> {
  constructor(@InjectModel(ALLOCATION_SETTINGS) model: Model<AllocationSettings>) {
    super(model);
  }

  /** The tenant's settings (revision 0, nothing set, when it never saved any). */
  async current(tenantId: string): Promise<AllocationSettings> {
    const stored = await this.findOne(tenantId, {});
    return stored ? { ...EMPTY, ...stored } : { tenantId, ...EMPTY };
  }

  /**
   * Writes `next` as revision `expected + 1` if the stored revision is still `expected`; false
   * when another change came first (the caller reads again and retries).
   */
  async replace(
    tenantId: string,
    expected: number,
    next: Pick<AllocationSettings, 'tagKeys' | 'dimensions' | 'splits' | 'providers' | 'rollupRevision'>,
  ): Promise<boolean> {
    const set = { revision: expected + 1, ...next };
    try {
      return (await this.updateOne(tenantId, { revision: expected }, { $set: set }, { upsert: expected === 0 })) > 0;
    } catch (error) {
      // two first writes at once: the unique tenant index lets one through
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }
}

@Injectable()
export class DimensionVersionRepository extends TenantRepository<DimensionVersion> {
  constructor(@InjectModel(DIMENSION_VERSION) model: Model<DimensionVersion>) {
    super(model);
  }
}
