import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import { CurrencyService } from '../currency/currency.service';
import { combineFilters } from '../expressions';
import { groupFilter } from '../resource-groups/group-expression';
import { VisibilityService } from '../resource-groups/visibility.service';
import { RollupPlanner } from '../rollups/rollup-planner';
import { BudgetaryUnit } from './dto/budget.dto';
import { periodsBetween } from './budget-periods';
import { Budget } from './schemas/budget.schema';

export type StoredBudget = Budget & { _id: Types.ObjectId };

const round = (value: number) => Math.round(value * 100) / 100;

/** Budget amount against actual cost, per period, computed by one aggregation per budget (over the rollups when they can answer). */
@Injectable()
export class BudgetEvaluator {
  constructor(
    private readonly planner: RollupPlanner,
    private readonly visibility: VisibilityService,
    private readonly currency: CurrencyService,
  ) {}

  async scopeFilter(tenantId: string, budget: Pick<Budget, 'scopeExpr' | 'scopeGroupId'>): Promise<Record<string, unknown>> {
    if (budget.scopeGroupId) return this.visibility.budgetaryFilter(tenantId, budget.scopeGroupId);
    return groupFilter(budget.scopeExpr ?? '');
  }

  /**
   * The budget's rows per period. `visible` narrows the actuals to what a caller may see (its
   * visibility filter); without it they cover the whole scope (System Admins, threshold events).
   */
  async units(tenantId: string, budget: StoredBudget, visible: Record<string, unknown> | null = null): Promise<BudgetaryUnit[]> {
    const conversion = await this.currency.conversionFor(tenantId);
    const rate = conversion.rateOf(budget.currency) ?? Number.NaN;
    const amount = round(budget.amount * rate);
    const periods = periodsBetween(budget.startPeriod, budget.endPeriod);
    const filter = combineFilters(
      await this.scopeFilter(tenantId, budget),
      { period: { $gte: budget.startPeriod, $lte: budget.endPeriod } },
      visible,
    );
    const where = await this.planner.choose(tenantId, filter, ['period', 'cost']);
    const actuals = await this.planner.aggregate<{ _id: string; cost: number }>(tenantId, where, [
      { $match: filter },
      { $group: { _id: '$period', cost: { $sum: '$cost' } } },
    ]);
    const actualByPeriod = new Map(actuals.map((row) => [row._id, row.cost]));
    return periods.map((period) => {
      const actual = round(actualByPeriod.get(period) ?? 0);
      const percentUsed = amount > 0 ? round((actual / amount) * 100) : 0;
      return {
        budgetId: String(budget._id),
        name: budget.name,
        period,
        amount,
        actual,
        remaining: round(amount - actual),
        percentUsed,
        // Compared on the money (in cents), not on the rounded percentage: 99.99 of 200 is not 50%.
        thresholdsCrossed: amount > 0 ? budget.thresholds.filter((threshold) => actual * 100 >= threshold * amount) : [],
        currency: conversion.corporateCurrency,
        source: where.source,
      };
    });
  }
}
