import { Module } from '@nestjs/common';
import { RollupsModule } from '../rollups/rollups.module';
import { MongooseModule } from '@nestjs/mongoose';
import { LineItemsModule } from '../line-items/line-items.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { BudgetEvaluator } from './budget-evaluator';
import { BudgetMonitor } from './budget-monitor';
import { BudgetRepository } from './budget.repository';
import { BudgetsController } from './budgets.controller';
import { BudgetsService } from './budgets.service';
import { Budget, BudgetSchema } from './schemas/budget.schema';
import { ThresholdCrossing, ThresholdCrossingSchema } from './schemas/threshold-crossing.schema';
import { ThresholdCrossingRepository } from './threshold-crossing.repository';

@Module({
  imports: [
    RollupsModule,
    MongooseModule.forFeature([
      { name: Budget.name, schema: BudgetSchema },
      { name: ThresholdCrossing.name, schema: ThresholdCrossingSchema },
    ]),
    LineItemsModule,
    ResourceGroupsModule,
  ],
  controllers: [BudgetsController],
  providers: [BudgetRepository, ThresholdCrossingRepository, BudgetEvaluator, BudgetsService, BudgetMonitor],
  exports: [BudgetMonitor],
})
export class BudgetsModule {}
