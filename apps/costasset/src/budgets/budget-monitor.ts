import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { isDuplicateKey } from '@lib/core';
import { BudgetEvaluator } from './budget-evaluator';
import { BudgetRepository } from './budget.repository';
import { ThresholdCrossingRepository } from './threshold-crossing.repository';

/**
 * After new line items arrive (`costasset.lineitems.changed`), re-evaluates the tenant's budgets
 * for the periods concerned and publishes `costasset.budget.threshold` for each threshold newly
 * crossed. Recording the crossing first, under a unique index, makes the event go out once per
 * budget, period and threshold, however many instances receive the change.
 */
@Injectable()
export class BudgetMonitor implements OnModuleInit {
  private readonly logger = new Logger('BudgetMonitor');

  constructor(
    private readonly bus: MessageBus,
    private readonly budgets: BudgetRepository,
    private readonly crossings: ThresholdCrossingRepository,
    private readonly evaluator: BudgetEvaluator,
  ) {}

  onModuleInit(): void {
    void this.bus.subscribe('costasset.lineitems.changed', (event) =>
      this.evaluate(event.tenantId, event.periods).then(
        () => undefined,
        (error: unknown) => this.logger.error({ err: error }, 'budget evaluation failed'),
      ),
    );
  }

  async evaluate(tenantId: string, periods: string[]): Promise<number> {
    const concerned = periods.length
      ? { startPeriod: { $lte: periods.reduce((a, b) => (a > b ? a : b)) }, endPeriod: { $gte: periods.reduce((a, b) => (a < b ? a : b)) } }
      : {};
    let published = 0;
    for (const budget of await this.budgets.find(tenantId, concerned)) {
      for (const unit of await this.evaluator.units(tenantId, budget)) {
        if (periods.length && !periods.includes(unit.period)) continue;
        for (const threshold of unit.thresholdsCrossed) {
          if (!(await this.recordOnce(tenantId, unit.budgetId, unit.period, threshold, unit.percentUsed))) continue;
          await this.bus.publish('costasset.budget.threshold', {
            tenantId,
            budgetId: unit.budgetId,
            budgetName: unit.name,
            amount: unit.amount,
            actual: unit.actual,
            currency: unit.currency,
            period: unit.period,
            threshold,
            percentUsed: unit.percentUsed,
          });
          published += 1;
        }
      }
    }
    return published;
  }

  private async recordOnce(tenantId: string, budgetId: string, period: string, threshold: number, percentUsed: number): Promise<boolean> {
    try {
      await this.crossings.create(tenantId, { budgetId, period, threshold, percentUsed });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }
}
