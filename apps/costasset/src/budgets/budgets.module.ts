import { Module } from '@nestjs/common';
import { RollupsModule } from '../rollups/rollups.module';
import { MongooseModule } from '@nestjs/mongoose';
import { LineItemsModule } from '../line-items/line-items.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { BudgetEvaluator } from './budget-evaluator';
import { CrossingKindMigration } from './crossing-kind-migration';
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
    NotificationsModule,
  ],
  controllers: [BudgetsController],
  providers: [BudgetRepository, ThresholdCrossingRepository, CrossingKindMigration, BudgetEvaluator, BudgetsService, BudgetMonitor],
  exports: [BudgetMonitor],
})
export class BudgetsModule {}
