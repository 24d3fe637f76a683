import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '@lib/core';
import { TenantRepository } from '@lib/persistence';
import type { ConfigValue } from './config-keys';
import { ConfigEntry } from './schemas/config-entry.schema';

@Injectable()
export class ConfigEntryRepository extends TenantRepository<ConfigEntry> {
  constructor(@InjectModel(ConfigEntry.name) model: Model<ConfigEntry>) {
    super(model);
  }

  /**
   * Creates or replaces the value of a key and answers the value it had before (null when it is
   * new). Two first writes racing on the unique index: the loser retries once as an update.
   */
  async upsertValue(tenantId: string, key: string, value: ConfigValue): Promise<ConfigValue | null> {
    const write = () => this.findOneAndUpdate(tenantId, { key }, { $set: { value } }, { upsert: true, new: false });
    const before = await write().catch((error: unknown) => {
      if (isDuplicateKey(error)) return write();
      throw error;
    });
    return before?.value ?? null;
  }

  async findValue(tenantId: string, key: string): Promise<ConfigValue | null> {
    return (await this.findOne(tenantId, { key }))?.value ?? null;
  }
}
