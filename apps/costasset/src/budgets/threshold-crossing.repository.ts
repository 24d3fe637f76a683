import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { LEGACY_CROSSING_KEY, ThresholdCrossing } from './schemas/threshold-crossing.schema';

const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;
const hasCode = (error: unknown, code: number) => (error as { code?: number } | null)?.code === code;

export type StoredCrossing = ThresholdCrossing & { _id: Types.ObjectId; crossedAt?: Date };

@Injectable()
export class ThresholdCrossingRepository extends TenantRepository<ThresholdCrossing> {
  constructor(@InjectModel(ThresholdCrossing.name) model: Model<ThresholdCrossing>) {
    super(model);
  }

  /** The tenant's crossings whose notification the notifier has not taken yet (`notifiedAt: null`, not missing), oldest first. */
  pending(tenantId: string, limit: number): Promise<StoredCrossing[]> {
    return this.find(tenantId, { notifiedAt: { $type: 'null' } }, { sort: { crossedAt: 1 }, limit }) as Promise<StoredCrossing[]>;
  }

  async markNotified(tenantId: string, id: Types.ObjectId, at: Date): Promise<void> {
    await this.updateOne(tenantId, { _id: id }, { $set: { notifiedAt: at } });
  }

  /** A deleted budget's crossings: nothing is left to tell about them. */
  forgetBudget(tenantId: string, budgetId: string): Promise<number> {
    return this.deleteMany(tenantId, { budgetId });
  }

  /** The name of the unique index of before kinds (tenant, budget, period, threshold), while it exists. */
  async legacyIndex(): Promise<string | undefined> {
    let indexes: { name: string; key: Record<string, number> }[];
    try {
      indexes = (await this.model.collection.listIndexes().toArray()) as typeof indexes;
    } catch (error) {
      if (hasCode(error, NAMESPACE_NOT_FOUND)) return undefined;
      throw error;
    }
    return indexes.find((index) => JSON.stringify(index.key) === JSON.stringify(LEGACY_CROSSING_KEY))?.name;
  }

  /** Gives every crossing without a kind `actual` (what it meant), tenant by tenant (each update on an index led by the tenant). */
  async assignMissingKind(): Promise<number> {
    let assigned = 0;
    for (const tenantId of (await this.model.distinct('tenantId').exec()) as string[]) {
      assigned += await this.updateMany(tenantId, { kind: { $exists: false } }, { $set: { kind: 'actual' } });
    }
    return assigned;
  }

  /** Another instance may have dropped it meanwhile. */
  async dropIndex(name: string): Promise<void> {
    try {
      await this.model.collection.dropIndex(name);
    } catch (error) {
      if (!hasCode(error, INDEX_NOT_FOUND)) throw error;
    }
  }
}
