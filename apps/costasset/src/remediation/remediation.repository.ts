import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { COST_LINE_ITEM, CostLineItem } from '../line-items/schemas/cost-line-item.schema';

export interface BulkUpdate {
  filter: Record<string, unknown>;
  /** An update document or an aggregation pipeline. */
  update: Record<string, unknown> | Record<string, unknown>[];
}

export interface BulkCounts {
  matched: number;
  modified: number;
}

/** Cost line items, with a bulk `updateMany` that reports what it matched and modified. */
@Injectable()
export class RemediationRepository extends TenantRepository<CostLineItem> {
  constructor(@InjectModel(COST_LINE_ITEM) model: Model<CostLineItem>) {
    super(model);
  }

  /** The tenant is put into every filter last; remediation updates never name `tenantId`. */
  async updateManyInBulk(tenantId: string, updates: BulkUpdate[]): Promise<BulkCounts> {
    if (!tenantId) throw new Error('tenantId is required');
    if (updates.length === 0) return { matched: 0, modified: 0 };
    const result = await this.model.collection.bulkWrite(
      updates.map(({ filter, update }) => ({ updateMany: { filter: { ...filter, tenantId }, update } })),
      { ordered: false, ...this.limits('bulk') },
    );
    return { matched: result.matchedCount, modified: result.modifiedCount };
  }
}
