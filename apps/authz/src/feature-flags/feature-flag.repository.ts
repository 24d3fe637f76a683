import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '@lib/core';
import { TenantRepository } from '@lib/persistence';
import type { FlagValue } from './flag-values';
import { FeatureFlag } from './schemas/feature-flag.schema';

@Injectable()
export class FeatureFlagRepository extends TenantRepository<FeatureFlag> {
  constructor(@InjectModel(FeatureFlag.name) model: Model<FeatureFlag>) {
    super(model);
  }

  /**
   * Sets a flag, creating it when `upsert`; answers the value it had before (null when it did not
   * exist). Two first writes racing on the unique index: the loser retries once as an update.
   */
  async setValue(tenantId: string, key: string, value: FlagValue, upsert: boolean): Promise<FlagValue | null> {
    const write = () => this.findOneAndUpdate(tenantId, { key }, { $set: { value } }, { upsert, new: false });
    const before = await write().catch((error: unknown) => {
      if (upsert && isDuplicateKey(error)) return write();
      throw error;
    });
    return before?.value ?? null;
  }
}
