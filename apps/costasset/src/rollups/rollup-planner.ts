import { Injectable } from '@nestjs/common';
import type { PipelineStage } from 'mongoose';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { rollupCanAnswer, rollupLevelFor, RollupLevel } from './rollup-fields';
import { CostRollupMonthlyRepository, CostRollupRepository } from './rollups.repository';
import { RollupsService } from './rollups.service';

export type CostSourceName = 'rollup' | 'line-items';
export type { RollupLevel } from './rollup-fields';

/** Where one aggregation of cost runs: the line items, or the rollups of one level. */
export interface CostSource {
  source: CostSourceName;
  /** `day` or `month` over the rollups, null over the line items. */
  rollupLevel: RollupLevel | null;
}

export const LINE_ITEMS: CostSource = { source: 'line-items', rollupLevel: null };

/**
 * Chooses where an aggregation of cost runs: the rollups when the filter (expression, scope,
 * visibility) and the fields grouped or summed are all rolled up and the tenant's rollups are
 * current, the line items otherwise; over the rollups, the monthly level unless the query reads
 * the day (`chargePeriodStart`). Pipelines count line items with `lineItemCount(source)`, so one
 * pipeline runs over any of them.
 */
@Injectable()
export class RollupPlanner {
  constructor(
    private readonly rollupsService: RollupsService,
    private readonly daily: CostRollupRepository,
    private readonly monthly: CostRollupMonthlyRepository,
    private readonly lineItems: CostLineItemRepository,
  ) {}

  /** Whether the tenant's rollups may answer now: a request may ask it beside its other lookups and pass the answer to `choose`. */
  ready(tenantId: string): Promise<boolean> {
    return this.rollupsService.ready(tenantId);
  }

  async choose(tenantId: string, filter: Record<string, unknown>, readFields: readonly string[], ready?: boolean): Promise<CostSource> {
    if (!rollupCanAnswer(filter, readFields)) return LINE_ITEMS;
    if (!(ready ?? (await this.rollupsService.ready(tenantId)))) return LINE_ITEMS;
    return { source: 'rollup', rollupLevel: rollupLevelFor(filter, readFields) };
  }

  aggregate<R>(tenantId: string, where: CostSource, pipeline: PipelineStage[]): Promise<R[]> {
    if (where.source === 'line-items') return this.lineItems.aggregate<R>(tenantId, pipeline);
    return where.rollupLevel === 'month' ? this.monthly.aggregate<R>(tenantId, pipeline) : this.daily.aggregate<R>(tenantId, pipeline);
  }
}

/** The `$sum` argument counting line items: one per line item, or each rollup row's count. */
export const lineItemCount = (source: CostSourceName): 1 | '$lineItems' => (source === 'rollup' ? '$lineItems' : 1);
