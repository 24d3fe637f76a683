import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import {
  COST_ROLLUP,
  COST_ROLLUP_ALLOCATION,
  COST_ROLLUP_ALLOCATION_DAILY,
  COST_ROLLUP_MONTHLY,
  COST_ROLLUP_MONTHLY_ALLOCATED,
  COST_ROLLUP_MONTHLY_SUMMARY,
  COST_ROLLUP_MONTHLY_SUMMARY_ALLOCATED,
  COST_ROLLUP_MONTHLY_RESOURCES,
  CostRollup,
  CostRollupAllocation,
  CostRollupMonthly,
  ROLLUP_KEY,
  RollupKey,
} from './schemas/cost-rollup.schema';

@Injectable()
export class CostRollupRepository extends TenantRepository<CostRollup> {
  constructor(@InjectModel(COST_ROLLUP) model: Model<CostRollup>) {
    super(model);
  }
}

@Injectable()
export class CostRollupMonthlyRepository extends TenantRepository<CostRollupMonthly> {
  constructor(@InjectModel(COST_ROLLUP_MONTHLY) model: Model<CostRollupMonthly>) {
    super(model);
  }
}

@Injectable()
export class CostRollupAllocationRepository extends TenantRepository<CostRollupAllocation> {
  constructor(@InjectModel(COST_ROLLUP_ALLOCATION) model: Model<CostRollupAllocation>) {
    super(model);
  }
}

@Injectable()
export class CostRollupAllocationDailyRepository extends TenantRepository<CostRollupAllocation> {
  constructor(@InjectModel(COST_ROLLUP_ALLOCATION_DAILY) model: Model<CostRollupAllocation>) {
    super(model);
  }
}

@Injectable()
export class CostRollupMonthlyAllocatedRepository extends TenantRepository<CostRollupMonthly> {
  constructor(@InjectModel(COST_ROLLUP_MONTHLY_ALLOCATED) model: Model<CostRollupMonthly>) {
    super(model);
  }
}

@Injectable()
export class CostRollupMonthlySummaryRepository extends TenantRepository<CostRollupMonthly> {
  constructor(@InjectModel(COST_ROLLUP_MONTHLY_SUMMARY) model: Model<CostRollupMonthly>) {
    super(model);
  }
}

@Injectable()
export class CostRollupMonthlySummaryAllocatedRepository extends TenantRepository<CostRollupMonthly> {
  constructor(@InjectModel(COST_ROLLUP_MONTHLY_SUMMARY_ALLOCATED) model: Model<CostRollupMonthly>) {
    super(model);
  }
}

@Injectable()
export class CostRollupMonthlyResourcesRepository extends TenantRepository<CostRollupMonthly> {
  constructor(@InjectModel(COST_ROLLUP_MONTHLY_RESOURCES) model: Model<CostRollupMonthly>) {
    super(model);
  }
}

@Injectable()
export class RollupKeyRepository extends TenantRepository<RollupKey> {
  constructor(@InjectModel(ROLLUP_KEY) model: Model<RollupKey>) {
    super(model);
  }

  /** Marks the uploads' rollups stale before their line items change (one upsert per upload). */
  async markDirty(tenantId: string, uploadRefIds: string[], now = new Date()): Promise<void> {
    if (uploadRefIds.length === 0) return;
    await this.bulkWrite(
      tenantId,
      uploadRefIds.map((uploadRefId) => ({
        updateOne: { filter: { uploadRefId }, update: { $inc: { generation: 1 }, $set: { dirtySince: now } }, upsert: true },
      })),
    );
  }

  /** `markDirty` of one upload, answering its new generation. */
  async bump(tenantId: string, uploadRefId: string, now = new Date()): Promise<number> {
    const state = await this.findOneAndUpdate(
      tenantId,
      { uploadRefId },
      { $inc: { generation: 1 }, $set: { dirtySince: now } },
      { upsert: true },
    );
    return state?.generation ?? 0;
  }

  /** Takes the upload's refresh lease when nobody holds it; the state at that moment, else null. */
  lock(tenantId: string, uploadRefId: string, leaseMs: number, now = new Date()): Promise<RollupKey | null> {
    return this.findOneAndUpdate(
      tenantId,
      { uploadRefId, $or: [{ lockedUntil: null }, { lockedUntil: { $lt: now } }] },
      { $set: { lockedUntil: new Date(now.getTime() + leaseMs) } },
    );
  }

  /**
   * Clears the stale mark and the lease if no write came since `generation`, marking the allocation
   * rows with the settings' `allocationRevision` they were computed with; false otherwise (the lease is kept).
   */
  async settle(tenantId: string, uploadRefId: string, generation: number, allocationRevision: number): Promise<boolean> {
    const update = { dirtySince: null, lockedUntil: null, allocationRevision, allocationDailyRevision: allocationRevision };
    return (await this.updateOne(tenantId, { uploadRefId, generation }, { $set: update })) > 0;
  }

  /**
   * After only the allocation rows of a current upload were recomputed: marks them with `revision`
   * and gives the lease back if no write came since `generation`; false otherwise (the lease is kept).
   */
  async settleAllocation(
    tenantId: string,
    uploadRefId: string,
    generation: number,
    field: 'allocationRevision' | 'allocationDailyRevision',
    revision: number,
  ): Promise<boolean> {
    const update = { lockedUntil: null, [field]: revision };
    return (await this.updateOne(tenantId, { uploadRefId, generation, dirtySince: null }, { $set: update })) > 0;
  }

  /** Bumps every upload being written or refreshed now (stale): its writer then recomputes with the settings saved before. */
  async bumpStale(tenantId: string): Promise<void> {
    await this.updateMany(tenantId, { dirtySince: { $ne: null } }, { $inc: { generation: 1 } });
  }

  async unlock(tenantId: string, uploadRefId: string): Promise<void> {
    await this.updateOne(tenantId, { uploadRefId }, { $set: { lockedUntil: null } });
  }
}

/**
 * Every collection of rollup rows (docs/rollups.md): the daily and monthly levels without
 * allocation fields, the monthly rows with them, the monthly summary without and with them, and
 * the allocation rows of one field by month and by day, the monthly rows by resource. Every row
 * belongs to one upload: a refresh replaces the upload's rows in all of them.
 */
@Injectable()
export class RollupLevels {
  constructor(
    readonly daily: CostRollupRepository,
    readonly monthly: CostRollupMonthlyRepository,
    readonly monthlyAllocated: CostRollupMonthlyAllocatedRepository,
    readonly allocation: CostRollupAllocationRepository,
    readonly allocationDaily: CostRollupAllocationDailyRepository,
    readonly summary: CostRollupMonthlySummaryRepository,
    readonly summaryAllocated: CostRollupMonthlySummaryAllocatedRepository,
    readonly resources: CostRollupMonthlyResourcesRepository,
  ) {}
}
