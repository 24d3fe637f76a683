import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { isDuplicateKey } from '@lib/core';
import { CostassetEnvironment } from '../costasset.environment';
import { Notifier } from '../notifications/notifier';
import { BudgetEvaluator, StoredBudget } from './budget-evaluator';
import { periodOfDate } from './budget-periods';
import { crossingKey, crossingMessage, CrossingFacts } from './budget-message';
import { BudgetRepository } from './budget.repository';
import type { CrossingKind } from './schemas/threshold-crossing.schema';
import { StoredCrossing, ThresholdCrossingRepository } from './threshold-crossing.repository';

/** Pending notifications retried per evaluation of a tenant (the oldest first). */
const RETRIES_PER_EVALUATION = 50;

/**
 * After new line items arrive (`costasset.lineitems.changed`), re-evaluates the tenant's budgets
 * and, for each threshold newly crossed, publishes `costasset.budget.threshold` and tells the
 * subscribers through the `Notifier`: actual thresholds of the periods concerned, and forecast
 * thresholds of the current period (its forecast reads the last 8 weeks of days, which any change
 * may touch) while its actual is still below them. Recording the crossing first, under a unique
 * index (budget, period, threshold, kind), makes both go out once, however many instances receive
 * the change. A crossing is recorded with `notifiedAt: null` and gets its date once the notifier
 * took the message; one whose notification failed is notified again at the tenant's next
 * evaluation (the same idempotency key: the notifier never sends it twice).
 */
@Injectable()
export class BudgetMonitor implements OnModuleInit {
  private readonly logger = new Logger('BudgetMonitor');

  constructor(
    private readonly bus: MessageBus,
    private readonly budgets: BudgetRepository,
    private readonly crossings: ThresholdCrossingRepository,
    private readonly evaluator: BudgetEvaluator,
    private readonly env: CostassetEnvironment,
    private readonly notifier: Notifier,
  ) {}

  onModuleInit(): void {
    void this.bus.subscribe('costasset.lineitems.changed', (event) =>
      this.evaluate(event.tenantId, event.periods).then(
        () => undefined,
        (error: unknown) => this.logger.error({ err: error }, 'budget evaluation failed'),
      ),
    );
  }

  /** Evaluates the tenant's budgets after a change of `periods` (all of them when empty); answers how many crossings fired. */
  async evaluate(tenantId: string, periods: string[], now: Date = new Date()): Promise<number> {
    await this.retryNotifications(tenantId);
    const current = periodOfDate(now);
    const first = periods.reduce((a, b) => (a < b ? a : b), '999999');
    const last = periods.reduce((a, b) => (a > b ? a : b), '000000');
    const changed = { startPeriod: { $lte: last }, endPeriod: { $gte: first } };
    const concerned = periods.length ? { $or: [changed, { startPeriod: { $lte: current }, endPeriod: { $gte: current } }] } : {};
    let fired = 0;
    for (const budget of await this.budgets.find(tenantId, concerned)) {
      const overlapsChange = budget.startPeriod <= last && budget.endPeriod >= first;
      if (periods.length && !overlapsChange && (budget.forecastThresholds ?? []).length === 0) continue;
      for (const unit of await this.evaluator.units(tenantId, budget, null, now)) {
        const facts = (kind: CrossingKind, threshold: number): CrossingFacts => ({
          budgetId: unit.budgetId,
          budgetName: unit.name,
          period: unit.period,
          kind,
          threshold,
          amount: unit.amount,
          actual: unit.actual,
          percentUsed: unit.percentUsed,
          forecast: unit.forecast,
          forecastLower: unit.forecastLower,
          forecastUpper: unit.forecastUpper,
          currency: unit.currency,
        });
        const crossed: CrossingFacts[] = [];
        if (!periods.length || periods.includes(unit.period)) crossed.push(...unit.thresholdsCrossed.map((t) => facts('actual', t)));
        // "forecast to exceed" only while the actual has not reached the threshold (then it is no forecast any more)
        for (const threshold of unit.forecastThresholdsCrossed)
          if (unit.actual * 100 < threshold * unit.amount) crossed.push(facts('forecast', threshold));
        for (const crossing of crossed) if (await this.fire(tenantId, budget, crossing)) fired += 1;
      }
    }
    return fired;
  }

  private async fire(tenantId: string, budget: StoredBudget, facts: CrossingFacts): Promise<boolean> {
    const recorded = await this.recordOnce(tenantId, facts);
    if (!recorded) return false;
    await this.bus.publish('costasset.budget.threshold', {
      tenantId,
      budgetId: facts.budgetId,
      budgetName: facts.budgetName,
      amount: facts.amount,
      actual: facts.actual,
      currency: facts.currency,
      period: facts.period,
      threshold: facts.threshold,
      percentUsed: facts.percentUsed,
      kind: facts.kind,
      forecast: facts.forecast,
    });
    await this.notify(tenantId, budget, recorded, facts);
    return true;
  }

  private async recordOnce(tenantId: string, facts: CrossingFacts): Promise<StoredCrossing | null> {
    const { budgetName: _name, ...fields } = facts;
    try {
      return (await this.crossings.create(tenantId, { ...fields, notifiedAt: null })) as StoredCrossing;
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  /** Hands the crossing to the notifier; a failure is logged and left for the next evaluation (`notifiedAt` stays null). */
  private async notify(tenantId: string, budget: StoredBudget, crossing: StoredCrossing, facts: CrossingFacts): Promise<void> {
    const key = crossingKey(facts);
    try {
      const scope = await this.evaluator.describeScope(tenantId, budget);
      await this.notifier.notify(
        tenantId,
        { kind: 'budget', budgetId: facts.budgetId },
        crossingMessage(facts, scope, this.env.consoleUrl),
        key,
      );
      await this.crossings.markNotified(tenantId, crossing._id, new Date());
    } catch (error) {
      this.logger.warn({ err: error, tenantId, idempotencyKey: key }, 'budget notification failed; retried at the next evaluation');
    }
  }

  /** Notifies again the tenant's crossings whose notification failed, from what each recorded. */
  private async retryNotifications(tenantId: string): Promise<void> {
    const pending = await this.crossings.pending(tenantId, RETRIES_PER_EVALUATION);
    for (const crossing of pending) {
      const budget = await this.budgets.findById(tenantId, crossing.budgetId);
      if (!budget) continue;
      await this.notify(tenantId, budget, crossing, {
        budgetId: crossing.budgetId,
        budgetName: budget.name,
        period: crossing.period,
        kind: crossing.kind ?? 'actual',
        threshold: crossing.threshold,
        amount: crossing.amount ?? 0,
        actual: crossing.actual ?? 0,
        percentUsed: crossing.percentUsed,
        forecast: crossing.forecast ?? null,
        forecastLower: crossing.forecastLower ?? null,
        forecastUpper: crossing.forecastUpper ?? null,
        currency: crossing.currency ?? '',
      });
    }
  }
}
