import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { CurrencyService } from '../currency/currency.service';
import { combineFilters, compileExpression, ExpressionError, toProblem } from '../expressions';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { VisibilityService } from '../resource-groups/visibility.service';
import { CostSource, lineItemCount, RollupPlanner } from '../rollups/rollup-planner';
import {
  assembleCosts,
  CostGroupRow,
  CostsAnswer,
  costsPipeline,
  CostsPlan,
  CostsSource,
  groupingRead,
  LINE_ITEMS_SOURCE,
  parseGroupings,
} from './costs-aggregation';
import { CostsProblems } from './costs.problems';
import { bucketExpression, currentPeriod, dayRowsBucket, rangeFilter, resolveRange } from './costs-range';
import { CostsQuery, DEFAULT_TOP } from './dto/costs.query';
import { forecastAnswer, forecastRange } from './costs-forecast';
import type { CostsForecastQuery, CostsForecastResponse } from './dto/costs-forecast.dto';

function filterOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  try {
    // no parameters: a placeholder is a `missing parameter` error at its position
    return compileExpression(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ExpressionError) throw toProblem(error);
    throw error;
  }
}

/**
 * Rollup rows carry the line-item fields the pipeline reads, and their count in `lineItems`.
 * Daily rows are bucketed by their day's start (`dayRowsBucket`), not by formatting each row's date.
 */
function costsSource(where: CostSource): CostsSource {
  if (where.source === 'line-items') return LINE_ITEMS_SOURCE;
  return {
    name: 'rollup',
    rollupLevel: where.rollupLevel,
    count: lineItemCount('rollup'),
    bucket: where.rollupLevel === 'day' ? dayRowsBucket : bucketExpression,
  };
}

/** The cost explorer: sums of the caller's visible line items, grouped and bucketed (docs/cost-explorer.md). */
@Injectable()
export class CostsService {
  constructor(
    private readonly lineItems: CostLineItemRepository,
    private readonly visibility: VisibilityService,
    private readonly currency: CurrencyService,
    private readonly planner: RollupPlanner,
  ) {}

  /**
   * Month-end and the next months per series (docs/cost-explorer.md, Forecasts): the explorer's
   * aggregation by day over the current month and the 56 days before it, then `forecastSeries`.
   */
  async forecast(principal: Principal, query: CostsForecastQuery, now = new Date()): Promise<CostsForecastResponse> {
    const { from, to } = forecastRange(now);
    return forecastAnswer(await this.costs(principal, { ...query, from, to, granularity: 'day' }));
  }

  async costs(principal: Principal, query: CostsQuery): Promise<CostsAnswer> {
    const groupBy = parseGroupings(query.groupBy ?? []);
    if (groupBy.filter((grouping) => 'tag' in grouping).length > 1) throw CostsProblems.invalid('groupBy', 'groupBy holds at most one tag');
    const expression = filterOf(query.filter);
    const [visible, currencies, view] = await Promise.all([
      this.visibility.filterFor(principal),
      this.currency.currencies(principal.tenantId),
      this.planner.view(principal.tenantId),
    ]);
    const selection = combineFilters(expression, visible);
    const defaultEnd =
      query.from === undefined && query.to === undefined
        ? await this.latestPeriod(principal.tenantId, combineFilters(selection, view.exclusion))
        : currentPeriod();
    const range = resolveRange(query, defaultEnd);
    const plan: CostsPlan = {
      range,
      groupBy,
      metric: query.metric ?? 'cost',
      top: query.top ?? DEFAULT_TOP,
      match: combineFilters(rangeFilter(range), selection),
    };
    // the bucket reads the period, or the day of the charges (then only the daily rollups can answer)
    const bucketField = bucketExpression(range) === '$period' ? 'period' : 'chargePeriodStart';
    const read = [...groupBy.map(groupingRead), plan.metric, 'billingCurrency', bucketField];
    const where = await this.planner.choose(principal.tenantId, plan.match, read, view);
    const source = costsSource(where);
    const rows = await this.planner.aggregate<CostGroupRow>(principal.tenantId, where, costsPipeline(plan, source), view);
    return assembleCosts(rows, plan, currencies.defaultCurrency, source);
  }

  /** The latest period holding data the caller may see, published (on the tenant + period index), else the current month. */
  private async latestPeriod(tenantId: string, selection: Record<string, unknown>): Promise<string> {
    const [latest] = await this.lineItems.find(tenantId, selection, { sort: { period: -1 }, limit: 1 }, { period: 1 });
    return latest?.period ?? currentPeriod();
  }
}
