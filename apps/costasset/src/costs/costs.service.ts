import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { CurrencyService } from '../currency/currency.service';
import { combineFilters, compileExpression, ExpressionError, toProblem } from '../expressions';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { VisibilityService } from '../resource-groups/visibility.service';
import { AllocatedCosts } from '../allocation/allocated-costs';
import { targetValue, type PieceDoc } from '../allocation/split-engine';
import { answeredFrom, CostSource, CostView, lineItemCount, RollupPlanner } from '../rollups/rollup-planner';
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
    name: answeredFrom(where),
    rollupLevel: where.transient ? null : where.rollupLevel,
    count: lineItemCount('rollup'),
    bucket: where.rollupLevel === 'day' ? dayRowsBucket : bucketExpression,
  };
}

/** A grouping's value for one piece of allocated cost. */
function groupingValue(grouping: ReturnType<typeof parseGroupings>[number], doc: PieceDoc): string | null {
  if ('field' in grouping) return (doc[grouping.field] as string | null | undefined) ?? null;
  if ('tag' in grouping) return targetValue(doc, { tag: grouping.tag });
  return targetValue(doc, { dimension: grouping.dimension });
}

/** The cost explorer: sums of the caller's visible line items, grouped and bucketed (docs/cost-explorer.md). */
@Injectable()
export class CostsService {
  constructor(
    private readonly lineItems: CostLineItemRepository,
    private readonly visibility: VisibilityService,
    private readonly currency: CurrencyService,
    private readonly planner: RollupPlanner,
    private readonly allocated: AllocatedCosts,
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
    if (plan.metric === 'allocatedCost') return this.allocatedCosts(principal.tenantId, plan, selection, view, currencies.defaultCurrency);
    // the bucket reads the period, or the day of the charges (then only the daily rollups can answer)
    const bucketField = bucketExpression(range) === '$period' ? 'period' : 'chargePeriodStart';
    const read = [...groupBy.map(groupingRead), plan.metric, 'billingCurrency', bucketField];
    const where = await this.planner.choose(principal.tenantId, plan.match, read, view);
    const source = costsSource(where);
    const rows = await this.planner.aggregate<CostGroupRow>(principal.tenantId, where, costsPipeline(plan, source), view);
    return assembleCosts(rows, plan, currencies.defaultCurrency, source);
  }

  /**
   * `metric=allocatedCost` (docs/allocation.md): each month's pieces of cost after the split rules,
   * grouped in memory; the default value of a dimension grouping (what is unallocated) is always shown.
   */
  private async allocatedCosts(
    tenantId: string,
    plan: CostsPlan,
    selection: Record<string, unknown>,
    view: CostView,
    corporateCurrency: string,
  ): Promise<CostsAnswer> {
    if (plan.range.granularity !== 'month') throw CostsProblems.invalid('granularity', 'allocatedCost is by month');
    const fields = plan.groupBy.map(groupingRead);
    const allocated = await this.allocated.periods(tenantId, plan.range.buckets, selection, fields, view);
    const rows: CostGroupRow[] = allocated.periods.flatMap(({ period, pieces }) =>
      pieces.map((piece) => {
        const id: CostGroupRow['_id'] = { b: period };
        plan.groupBy.forEach((grouping, index) => (id[`g${index}` as 'g0'] = groupingValue(grouping, piece.doc)));
        return { _id: id, amount: piece.amount, lineItems: piece.lineItems };
      }),
    );
    const [only] = plan.groupBy;
    const unallocated =
      plan.groupBy.length === 1 && 'dimension' in only
        ? view.allocation.definitions.dimensions.find((dimension) => dimension.name === only.dimension)?.defaultValue
        : undefined;
    if (unallocated !== undefined) rows.push({ _id: { b: plan.range.buckets[0], g0: unallocated }, amount: 0, lineItems: 0 });
    const source = costsSource({ source: allocated.source, rollupLevel: allocated.source === 'rollup' ? 'month' : null });
    return assembleCosts(rows, plan, corporateCurrency, source, unallocated === undefined ? undefined : { [only.name]: unallocated });
  }

  /** The latest period holding data the caller may see, published (on the tenant + period index), else the current month. */
  private async latestPeriod(tenantId: string, selection: Record<string, unknown>): Promise<string> {
    const filter = await this.planner.expandDimensions(tenantId, selection);
    const [latest] = await this.lineItems.find(tenantId, filter, { sort: { period: -1 }, limit: 1 }, { period: 1 });
    return latest?.period ?? currentPeriod();
  }
}
