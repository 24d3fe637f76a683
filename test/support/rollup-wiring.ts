import type { Connection, Model } from 'mongoose';
import type { AllocationModels } from '../../apps/costasset/src/allocation/allocation-models';
import { CostLineItemRepository } from '../../apps/costasset/src/line-items/line-items.repository';
import { COST_LINE_ITEM, CostLineItem, CostLineItemSchema } from '../../apps/costasset/src/line-items/schemas/cost-line-item.schema';
import { ImportViewRepository, ImportViews } from '../../apps/costasset/src/rollups/import-views';
import { RollupPlanner } from '../../apps/costasset/src/rollups/rollup-planner';
import {
  CostRollupAllocationDailyRepository,
  CostRollupAllocationRepository,
  CostRollupMonthlyAllocatedRepository,
  CostRollupMonthlyRepository,
  CostRollupMonthlySummaryAllocatedRepository,
  CostRollupMonthlyResourcesRepository,
  CostRollupMonthlySummaryRepository,
  CostRollupRepository,
  RollupKeyRepository,
  RollupLevels,
} from '../../apps/costasset/src/rollups/rollups.repository';
import { RollupsService } from '../../apps/costasset/src/rollups/rollups.service';
import { COST_IMPORT_VIEW, CostImportViewSchema } from '../../apps/costasset/src/rollups/schemas/cost-import-view.schema';
import {
  COST_ROLLUP,
  COST_ROLLUP_ALLOCATION,
  COST_ROLLUP_ALLOCATION_DAILY,
  COST_ROLLUP_MONTHLY,
  COST_ROLLUP_MONTHLY_ALLOCATED,
  COST_ROLLUP_MONTHLY_SUMMARY,
  COST_ROLLUP_MONTHLY_SUMMARY_ALLOCATED,
  COST_ROLLUP_MONTHLY_RESOURCES,
  CostRollupAllocationDailySchema,
  CostRollupAllocationSchema,
  CostRollupMonthlyAllocatedSchema,
  CostRollupMonthlySchema,
  CostRollupMonthlySummaryAllocatedSchema,
  CostRollupMonthlyResourcesSchema,
  CostRollupMonthlySummarySchema,
  CostRollupSchema,
  ROLLUP_KEY,
  RollupKeySchema,
} from '../../apps/costasset/src/rollups/schemas/cost-rollup.schema';

/** What `rollupStackOn` wires: the line items, every rollup collection, the rollups service and the planner. */
export interface RollupWiring {
  lineItems: CostLineItemRepository;
  keys: RollupKeyRepository;
  levels: RollupLevels;
  rollups: RollupsService;
  importViews: ImportViews;
  planner: RollupPlanner;
}

/**
 * The rollup stack wired on a connection as the app wires it, every index built before the first
 * write. Free of Jest, so that the allocation bench wires its stack here too.
 */
export async function rollupStackOn(conn: Connection, allocation: AllocationModels): Promise<RollupWiring> {
  const model = <T>(name: string, schema: unknown) => conn.model<T>(name, schema as never) as Model<T>;
  const models = {
    lineItems: model<CostLineItem>(COST_LINE_ITEM, CostLineItemSchema),
    daily: model(COST_ROLLUP, CostRollupSchema),
    monthly: model(COST_ROLLUP_MONTHLY, CostRollupMonthlySchema),
    monthlyAllocated: model(COST_ROLLUP_MONTHLY_ALLOCATED, CostRollupMonthlyAllocatedSchema),
    allocation: model(COST_ROLLUP_ALLOCATION, CostRollupAllocationSchema),
    allocationDaily: model(COST_ROLLUP_ALLOCATION_DAILY, CostRollupAllocationDailySchema),
    summary: model(COST_ROLLUP_MONTHLY_SUMMARY, CostRollupMonthlySummarySchema),
    summaryAllocated: model(COST_ROLLUP_MONTHLY_SUMMARY_ALLOCATED, CostRollupMonthlySummaryAllocatedSchema),
    resources: model(COST_ROLLUP_MONTHLY_RESOURCES, CostRollupMonthlyResourcesSchema),
    keys: model(ROLLUP_KEY, RollupKeySchema),
    views: model(COST_IMPORT_VIEW, CostImportViewSchema),
  };
  await Promise.all(Object.values(models).map((one) => one.init()));
  const lineItems = new CostLineItemRepository(models.lineItems);
  const levels = new RollupLevels(
    new CostRollupRepository(models.daily as never),
    new CostRollupMonthlyRepository(models.monthly as never),
    new CostRollupMonthlyAllocatedRepository(models.monthlyAllocated as never),
    new CostRollupAllocationRepository(models.allocation as never),
    new CostRollupAllocationDailyRepository(models.allocationDaily as never),
    new CostRollupMonthlySummaryRepository(models.summary as never),
    new CostRollupMonthlySummaryAllocatedRepository(models.summaryAllocated as never),
    new CostRollupMonthlyResourcesRepository(models.resources as never),
  );
  const keys = new RollupKeyRepository(models.keys as never);
  const rollups = new RollupsService(lineItems, levels, keys, allocation);
  const importViews = new ImportViews(new ImportViewRepository(models.views as never));
  const planner = new RollupPlanner(rollups, importViews, levels, lineItems, allocation);
  return { lineItems, keys, levels, rollups, importViews, planner };
}
