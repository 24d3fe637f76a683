import type { PipelineStage } from 'mongoose';
import { bucketExpression, CostsRange, dayBucket } from './costs-range';
import { dimensionField } from '../expressions';
import { tagValueExpression } from '../line-items/tags';
import { dimensionRead, tagRead } from '../rollups/rollup-fields';
import { CostDimension, CostMetric, DIMENSION_GROUPING, TAG_GROUPING } from './dto/costs.query';

/** One grouping of the answer: a stored field, the value of one tag, or of one virtual dimension. */
export type Grouping =
  { name: string; field: CostDimension } | { name: string; tag: { group: string; key: string } } | { name: string; dimension: string };

/** Everything the aggregation needs, resolved from the query. */
export interface CostsPlan {
  range: CostsRange;
  groupBy: Grouping[];
  metric: CostMetric;
  top: number;
  /** The rows to sum: the range AND the filter expression AND the caller's visibility. */
  match: Record<string, unknown>;
}

/**
 * Where sums come from. Line items count one each; a collection of pre-summed rows (rollups)
 * names its amount fields and its count field the same way, so one pipeline serves both.
 */
export interface CostsSource {
  name: 'line-items' | 'rollup';
  rollupLevel: 'day' | 'month' | null;
  /** The `$sum` argument of the row count. */
  count: unknown;
  /**
   * The bucket of a row for the range's granularity: a period, a day or a month (strings), or a
   * date, the start of a day, named by `assembleCosts` (daily rollup rows start at midnight, so
   * grouping them by that date is grouping by day).
   */
  bucket: (range: CostsRange) => unknown;
}

export const LINE_ITEMS_SOURCE: CostsSource = { name: 'line-items', rollupLevel: null, count: 1, bucket: bucketExpression };

export function parseGroupings(entries: readonly string[]): Grouping[] {
  return entries.map((name) => {
    const tag = TAG_GROUPING.exec(name);
    if (tag) return { name, tag: { group: tag[1], key: tag[2] } };
    const dimension = DIMENSION_GROUPING.exec(name);
    return dimension ? { name, dimension: dimension[1] } : { name, field: name as CostDimension };
  });
}

/** What a grouping reads, as the planner names it (`RollupPlanner.choose`). */
export function groupingRead(grouping: Grouping): string {
  if ('field' in grouping) return grouping.field;
  if ('tag' in grouping) return tagRead(grouping.tag.group, grouping.tag.key);
  return dimensionRead(grouping.dimension);
}

/** `cost` and `allocatedCost` are in the tenant's corporate currency; the other metrics in each line item's billing currency. */
const inCorporateCurrency = (metric: CostMetric) => metric === 'cost' || metric === 'allocatedCost';

const isBillingCurrency = (grouping: Grouping) => 'field' in grouping && grouping.field === 'billingCurrency';

/**
 * The one place the answer's grouping is built: `$match` then one `$group` per bucket and key
 * (`g0`…`g2`, plus `c`, the billing currency, for metrics in the billing currency). A planner can
 * run the same pipeline over another collection holding the same fields (see CostsSource).
 */
export function costsPipeline(plan: CostsPlan, source: CostsSource = LINE_ITEMS_SOURCE): PipelineStage[] {
  const id: Record<string, unknown> = { b: source.bucket(plan.range) };
  plan.groupBy.forEach((grouping, index) => {
    if ('tag' in grouping) id[`g${index}`] = tagValueExpression(grouping.tag.group, grouping.tag.key);
    else id[`g${index}`] = { $ifNull: [`$${'field' in grouping ? grouping.field : dimensionField(grouping.dimension)}`, null] };
  });
  if (!inCorporateCurrency(plan.metric) && !plan.groupBy.some(isBillingCurrency)) id.c = { $ifNull: ['$billingCurrency', null] };
  return [
    { $match: plan.match },
    { $group: { _id: id, amount: { $sum: `$${plan.metric}` }, lineItems: { $sum: source.count } } },
  ] as PipelineStage[];
}

/** One output row of `costsPipeline`. */
export interface CostGroupRow {
  _id: { b: string | Date | null; g0?: string | null; g1?: string | null; g2?: string | null; c?: string | null };
  amount: number;
  lineItems: number;
}

export interface CostSeries {
  key: Record<string, string | null>;
  other?: boolean;
  total: number;
  values: number[];
  lineItems: number;
  /** Line items per bucket (what the CSV answer needs to tell an empty bucket from a zero sum). */
  counts: number[];
}

export interface CostsAnswer {
  source: CostsSource['name'];
  rollupLevel: CostsSource['rollupLevel'];
  metric: CostMetric;
  currency: string | null;
  granularity: CostsRange['granularity'];
  from: string;
  to: string;
  groupBy: string[];
  buckets: string[];
  series: CostSeries[];
  totals: number[];
  total: number;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const byAbsoluteTotal = (a: CostSeries, b: CostSeries) =>
  Math.abs(b.total) - Math.abs(a.total) || JSON.stringify(a.key).localeCompare(JSON.stringify(b.key));

function emptySeries(key: Record<string, string | null>, buckets: number): CostSeries {
  return { key, total: 0, values: new Array<number>(buckets).fill(0), counts: new Array<number>(buckets).fill(0), lineItems: 0 };
}

/** Adds `from` into `into`, bucket by bucket. */
function addInto(into: CostSeries, from: CostSeries): void {
  from.values.forEach((value, index) => (into.values[index] += value));
  from.counts.forEach((count, index) => (into.counts[index] += count));
  into.lineItems += from.lineItems;
  into.total += from.total;
}

/**
 * Turns grouped rows into the answer: series aligned with the buckets, the largest `top` kept
 * and the rest summed into one `other` series (one per billing currency when amounts are in
 * several, so that currencies are never added together). Amounts are never rounded.
 */
export function assembleCosts(
  rows: CostGroupRow[],
  plan: CostsPlan,
  corporateCurrency: string,
  source: CostsSource = LINE_ITEMS_SOURCE,
  pinned?: Record<string, string | null>,
): CostsAnswer {
  const { buckets } = plan.range;
  const bucketIndex = new Map(buckets.map((bucket, index) => [bucket, index]));
  const explicitCurrency = plan.groupBy.findIndex(isBillingCurrency);
  const currencyOf = (row: CostGroupRow) => (explicitCurrency >= 0 ? row._id[`g${explicitCurrency}` as 'g0'] : row._id.c) ?? null;
  const rowCurrencies = new Set(rows.map(currencyOf));
  const multiCurrency = !inCorporateCurrency(plan.metric) && rowCurrencies.size > 1;
  const splitByCurrency = multiCurrency && explicitCurrency < 0;
  const currencyName = explicitCurrency >= 0 ? plan.groupBy[explicitCurrency].name : 'billingCurrency';
  const groupBy = [...plan.groupBy.map((grouping) => grouping.name), ...(splitByCurrency ? ['billingCurrency'] : [])];

  const byKey = new Map<string, CostSeries>();
  const bucketOf = (bucket: string | Date | null) => (bucket instanceof Date ? dayBucket(bucket, plan.range.granularity) : bucket);
  for (const row of rows) {
    const bucket = bucketOf(row._id.b);
    const index = bucket === null ? undefined : bucketIndex.get(bucket);
    if (index === undefined) continue;
    const key: Record<string, string | null> = {};
    plan.groupBy.forEach((grouping, position) => (key[grouping.name] = row._id[`g${position}` as 'g0'] ?? null));
    if (splitByCurrency) key.billingCurrency = row._id.c ?? null;
    const id = JSON.stringify(groupBy.map((name) => key[name]));
    let series = byKey.get(id);
    if (!series) byKey.set(id, (series = emptySeries(key, buckets.length)));
    series.values[index] += row.amount;
    series.counts[index] += row.lineItems;
    series.lineItems += row.lineItems;
  }
  for (const series of byKey.values()) series.total = sum(series.values);

  const ranked = [...byKey.values()].sort(byAbsoluteTotal);
  // a pinned series (allocated cost's unallocated value) is kept whatever its rank
  const isPinned = (series: CostSeries) =>
    pinned !== undefined && plan.groupBy.every((grouping) => series.key[grouping.name] === pinned[grouping.name]);
  const topped = plan.groupBy.length === 0 ? ranked : ranked.slice(0, plan.top);
  const missing = ranked.slice(plan.top).find(isPinned);
  const kept = missing && plan.groupBy.length > 0 ? [...ranked.slice(0, plan.top - 1), missing] : topped;
  const keptSet = new Set(kept);
  const others = new Map<string | null, CostSeries>();
  for (const series of plan.groupBy.length === 0 ? [] : ranked.filter((entry) => !keptSet.has(entry))) {
    const currency = multiCurrency ? series.key[currencyName] : null;
    let other = others.get(currency);
    if (!other) {
      const key: Record<string, string | null> = Object.fromEntries(groupBy.map((name) => [name, null]));
      if (multiCurrency) key[currencyName] = currency;
      others.set(currency, (other = { ...emptySeries(key, buckets.length), other: true }));
    }
    addInto(other, series);
  }
  const series = [...kept, ...[...others.values()].sort(byAbsoluteTotal)];
  const totals = buckets.map((_, index) => sum(series.map((entry) => entry.values[index])));

  const single = [...rowCurrencies][0];
  const currency = inCorporateCurrency(plan.metric) ? corporateCurrency : multiCurrency ? null : (single ?? corporateCurrency);
  return {
    source: source.name,
    rollupLevel: source.rollupLevel,
    metric: plan.metric,
    currency,
    granularity: plan.range.granularity,
    from: plan.range.from,
    to: plan.range.to,
    groupBy,
    buckets,
    series,
    totals,
    total: sum(totals),
  };
}
