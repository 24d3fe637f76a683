import { Injectable } from '@nestjs/common';
import type { PipelineStage } from 'mongoose';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { rollupCanAnswer } from './rollup-fields';
import { CostRollupRepository } from './rollups.repository';
import { RollupsService } from './rollups.service';

export type CostSourceName = 'rollup' | 'line-items';

/**
 * Chooses where an aggregation of cost runs: the rollups when the filter (expression, scope,
 * visibility) and the fields grouped or summed are all rolled up and the tenant's rollups are
 * current, the line items otherwise. Pipelines count line items with `lineItemCount(source)`,
 * so one pipeline runs over either.
 */
@Injectable()
export class RollupPlanner {
  constructor(
    private readonly rollupsService: RollupsService,
    private readonly rollups: CostRollupRepository,
    private readonly lineItems: CostLineItemRepository,
  ) {}

  async choose(tenantId: string, filter: Record<string, unknown>, readFields: readonly string[]): Promise<CostSourceName> {
    if (!rollupCanAnswer(filter, readFields)) return 'line-items';
    return (await this.rollupsService.ready(tenantId)) ? 'rollup' : 'line-items';
  }

  aggregate<R>(tenantId: string, source: CostSourceName, pipeline: PipelineStage[]): Promise<R[]> {
    return source === 'rollup' ? this.rollups.aggregate<R>(tenantId, pipeline) : this.lineItems.aggregate<R>(tenantId, pipeline);
  }
}

/** The `$sum` argument counting line items: one per line item, or each rollup row's count. */
export const lineItemCount = (source: CostSourceName): 1 | '$lineItems' => (source === 'rollup' ? '$lineItems' : 1);
