import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { LineItemsModule } from '../line-items/line-items.module';
import { RollupPlanner } from './rollup-planner';
import { CostRollupRepository, RollupKeyRepository } from './rollups.repository';
import { RollupsService } from './rollups.service';
import { COST_ROLLUP, CostRollupSchema, ROLLUP_KEY, RollupKeySchema } from './schemas/cost-rollup.schema';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: COST_ROLLUP, schema: CostRollupSchema },
      { name: ROLLUP_KEY, schema: RollupKeySchema },
    ]),
    LineItemsModule,
  ],
  providers: [CostRollupRepository, RollupKeyRepository, RollupsService, RollupPlanner],
  exports: [RollupsService, RollupPlanner],
})
export class RollupsModule {}
