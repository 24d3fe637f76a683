import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AllocationStoreModule } from '../allocation/allocation-store.module';
import { LineItemStoreModule } from '../line-items/line-item-store.module';
import { ImportViewRepository, ImportViews } from './import-views';
import { RollupPlanner } from './rollup-planner';
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
} from './rollups.repository';
import { RollupsService } from './rollups.service';
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
} from './schemas/cost-rollup.schema';
import { COST_IMPORT_VIEW, CostImportViewSchema } from './schemas/cost-import-view.schema';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: COST_ROLLUP, schema: CostRollupSchema },
      { name: COST_ROLLUP_MONTHLY, schema: CostRollupMonthlySchema },
      { name: COST_ROLLUP_ALLOCATION, schema: CostRollupAllocationSchema },
      { name: COST_ROLLUP_ALLOCATION_DAILY, schema: CostRollupAllocationDailySchema },
      { name: COST_ROLLUP_MONTHLY_ALLOCATED, schema: CostRollupMonthlyAllocatedSchema },
      { name: COST_ROLLUP_MONTHLY_SUMMARY, schema: CostRollupMonthlySummarySchema },
      { name: COST_ROLLUP_MONTHLY_SUMMARY_ALLOCATED, schema: CostRollupMonthlySummaryAllocatedSchema },
      { name: COST_ROLLUP_MONTHLY_RESOURCES, schema: CostRollupMonthlyResourcesSchema },
      { name: ROLLUP_KEY, schema: RollupKeySchema },
      { name: COST_IMPORT_VIEW, schema: CostImportViewSchema },
    ]),
    LineItemStoreModule,
    AllocationStoreModule,
  ],
  providers: [
    CostRollupRepository,
    CostRollupMonthlyRepository,
    CostRollupAllocationRepository,
    CostRollupAllocationDailyRepository,
    CostRollupMonthlyAllocatedRepository,
    CostRollupMonthlySummaryRepository,
    CostRollupMonthlySummaryAllocatedRepository,
    CostRollupMonthlyResourcesRepository,
    RollupKeyRepository,
    RollupLevels,
    RollupsService,
    RollupPlanner,
    ImportViewRepository,
    ImportViews,
  ],
  exports: [RollupsService, RollupPlanner, ImportViews],
})
export class RollupsModule {}
