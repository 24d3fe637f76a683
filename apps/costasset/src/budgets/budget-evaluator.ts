import { Injectable } from '@nestjs/common';
import type { PipelineStage } from 'mongoose';
import { Types } from 'mongoose';
import { CurrencyService } from '../currency/currency.service';
import { combineFilters } from '../expressions';
import { groupFilter } from '../resource-groups/group-expression';
import { VisibilityService } from '../resource-groups/visibility.service';
import { answeredFrom, CostView, RollupPlanner } from '../rollups/rollup-planner';
import { BudgetaryUnit } from './dto/budget.dto';
import { FORECAST_MONTHS, forecastWindowStart, outlookByPeriod } from './budget-forecast';
import type { ScopeDescription } from './budget-message';
import { addMonths, periodOfDate, periodsBetween } from './budget-periods';
import { Budget } from './schemas/budget.schema';

export type StoredBudget = Budget & { _id: Types.ObjectId };

const round = (value: number) => Math.round(value * 100) / 100;

type Row = { _id: string | { period: string; day: string | null }; cost: number };

/**
 * Budget amount against actual cost and its forecast, per period, computed by one aggregation per
 * budget (over the rollups when they can answer): by period alone when no period of the budget is
 * current or within the forecast's horizon, else by period and day (the days of the forecast's
 * window only; earlier ones are summed by period).
 */
@Injectable()
export class BudgetEvaluator {
  constructor(
    private readonly planner: RollupPlanner,
    private readonly visibility: VisibilityService,
    private readonly currency: CurrencyService,
  ) {}

  /** What a request evaluating several budgets reads them all through (`RollupPlanner.view`): pass it to `units`. */
  view(tenantId: string): Promise<CostView> {
    return this.planner.view(tenantId);
  }

  async scopeFilter(tenantId: string, budget: Pick<Budget, 'scopeExpr' | 'scopeGroupId'>): Promise<Record<string, unknown>> {
    if (budget.scopeGroupId) return this.visibility.budgetaryFilter(tenantId, budget.scopeGroupId);
    return groupFilter(budget.scopeExpr ?? '');
  }

  /** The budget's scope for people and for the explorer's filter (a budgetary group by its expression). */
  async describeScope(tenantId: string, budget: Pick<Budget, 'scopeExpr' | 'scopeGroupId'>): Promise<ScopeDescription> {
    if (!budget.scopeGroupId) {
      const expr = budget.scopeExpr ?? '';
      return { words: `expression ${expr}`, filter: expr, expr };
    }
    const expr = await this.visibility.budgetaryExpression(tenantId, budget.scopeGroupId);
    return { words: `budgetary group "${budget.scopeGroupId}": ${expr}`, filter: expr, groupId: budget.scopeGroupId };
  }

  /**
   * The budget's rows per period. `visible` narrows the actuals and the daily costs the forecast
   * reads to what a caller may see (its visibility filter); without it they cover the whole scope
   * (System Admins, threshold events). `now` says which period is current (UTC). `view`: what the
   * caller read the other budgets through (`RollupPlanner.view`), else looked up with the conversion.
   */
  async units(
    tenantId: string,
    budget: StoredBudget,
    visible: Record<string, unknown> | null = null,
    now: Date = new Date(),
    view?: CostView,
  ): Promise<BudgetaryUnit[]> {
    const [conversion, costView] = await Promise.all([this.currency.conversionFor(tenantId), view ?? this.planner.view(tenantId)]);
    const rate = conversion.rateOf(budget.currency) ?? Number.NaN;
    const amount = round(budget.amount * rate);
    const periods = periodsBetween(budget.startPeriod, budget.endPeriod);
    const current = periodOfDate(now);
    const horizon = addMonths(current, FORECAST_MONTHS);
    const daily = periods.some((period) => period >= current && period <= horizon);
    const windowStart = forecastWindowStart(now);
    const firstPeriod = daily && periodOfDate(windowStart) < budget.startPeriod ? periodOfDate(windowStart) : budget.startPeriod;
    const filter = combineFilters(
      await this.scopeFilter(tenantId, budget),
      { period: { $gte: firstPeriod, $lte: budget.endPeriod } },
      visible,
    );
    const where = await this.planner.choose(
      tenantId,
      filter,
      daily ? ['period', 'chargePeriodStart', 'cost'] : ['period', 'cost'],
      costView,
    );
    const dayOf = { $dateToString: { format: '%Y-%m-%d', date: '$chargePeriodStart' } };
    const group = daily
      ? {
          _id: { period: '$period', day: { $cond: [{ $gte: ['$chargePeriodStart', windowStart] }, dayOf, null] } },
          cost: { $sum: '$cost' },
        }
      : { _id: '$period', cost: { $sum: '$cost' } };
    const rows = await this.planner.aggregate<Row>(tenantId, where, [{ $match: filter }, { $group: group }] as PipelineStage[], costView);

    const actualByPeriod = new Map<string, number>();
    const costByDay = new Map<string, number>();
    for (const row of rows) {
      const { period, day } = typeof row._id === 'string' ? { period: row._id, day: null } : row._id;
      actualByPeriod.set(period, (actualByPeriod.get(period) ?? 0) + row.cost);
      if (day) costByDay.set(day, (costByDay.get(day) ?? 0) + row.cost);
    }
    const outlook = daily ? outlookByPeriod(costByDay, now.toISOString().slice(0, 10), horizon) : new Map();
    const percentOf = (value: number) => (amount > 0 ? round((value / amount) * 100) : 0);
    // Compared on the money (in cents), not on the rounded percentage: 99.99 of 200 is not 50%.
    const reached = (value: number, thresholds: number[]) =>
      amount > 0 ? thresholds.filter((threshold) => value * 100 >= threshold * amount) : [];
    const forecastThresholds = budget.forecastThresholds ?? [];

    return periods.map((period) => {
      const actual = round(actualByPeriod.get(period) ?? 0);
      const phase = period < current ? 'past' : period === current ? 'current' : 'future';
      const ahead = phase === 'past' ? { rest: 0, lower: 0, upper: 0 } : outlook.get(period);
      const forecast = ahead ? round(actual + ahead.rest) : null;
      return {
        budgetId: String(budget._id),
        name: budget.name,
        period,
        amount,
        actual,
        remaining: round(amount - actual),
        percentUsed: percentOf(actual),
        thresholds: budget.thresholds,
        thresholdsCrossed: reached(actual, budget.thresholds),
        phase,
        forecast,
        forecastLower: ahead ? round(actual + ahead.lower) : null,
        forecastUpper: ahead ? round(actual + ahead.upper) : null,
        forecastPercentUsed: forecast === null ? null : percentOf(forecast),
        forecastThresholds,
        forecastThresholdsCrossed: phase === 'current' && forecast !== null ? reached(forecast, forecastThresholds) : [],
        currency: conversion.corporateCurrency,
        source: answeredFrom(where),
      };
    });
  }
}
