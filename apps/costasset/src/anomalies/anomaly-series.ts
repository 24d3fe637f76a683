import type { PipelineStage } from 'mongoose';
import type { AllocationModel } from '../allocation/allocation-model';
import { tagValueExpression } from '../line-items/tags';
import { dimensionRead, tagRead } from '../rollups/rollup-fields';
import { detectAnomalies, type AnomalyDetectionParameters } from '../forecasting/anomaly-detection';
import { dayNumber, isoDateOf } from '../forecasting/seasonal-model';
import type { AnomalyFigures } from './anomaly.repository';

/**
 * The dimensions the base series are cut by: provider × billing account × service, all three
 * rolled up. Each virtual dimension (`dimension:<name>`) and activated tag key of one group
 * (`tag:<group>:<key>`) cuts series of its own (`seriesMonitors`); everything below takes a list of
 * such names as data (a series is a map name → value).
 */
export const SERIES_DIMENSIONS: readonly string[] = ['providerName', 'billingAccountId', 'serviceName'];

const DIMENSION_SERIES = /^dimension:(.+)$/;
const TAG_SERIES = /^tag:([^:]+):(.+)$/;
/** Names that are safe as keys of a stored document (no `.`, no leading `$`). */
const STORABLE = /^[^.$][^.]*$/;

/**
 * The monitors of a detection run, each a list of series names: the base one, then one per
 * virtual dimension and one per activated tag key of a given group (a key activated in any group
 * has no single value per line item, and keys holding `.` cannot name a stored field: neither
 * gets series of its own).
 */
export function seriesMonitors(allocation: AllocationModel): string[][] {
  const monitors: string[][] = [[...SERIES_DIMENSIONS]];
  for (const name of allocation.dimensionNames) monitors.push([`dimension:${name}`]);
  for (const { group, key } of allocation.definitions.tagKeys)
    if (group !== null && STORABLE.test(group) && STORABLE.test(key)) monitors.push([`tag:${group}:${key}`]);
  return monitors;
}

/** The aggregation expression of a series name over line items and rollup rows. */
function seriesValue(name: string): unknown {
  const dimension = DIMENSION_SERIES.exec(name);
  if (dimension) return { $ifNull: [`$dimensions.${dimension[1]}`, null] };
  const tag = TAG_SERIES.exec(name);
  if (tag) return tagValueExpression(tag[1], tag[2]);
  return { $ifNull: [`$${name}`, null] };
}

/** What a series name reads, as the planner names it. */
export function seriesRead(name: string): string {
  const dimension = DIMENSION_SERIES.exec(name);
  if (dimension) return dimensionRead(dimension[1]);
  const tag = TAG_SERIES.exec(name);
  return tag ? tagRead(tag[1], tag[2]) : name;
}

/** The one canonical form of a series' dimensions (entries sorted by name): its key in the unique index. */
export function seriesKeyOf(dimensions: Record<string, string | null>): string {
  return JSON.stringify(
    Object.keys(dimensions)
      .sort()
      .map((name) => [name, dimensions[name]]),
  );
}

/** One row of `dailySeriesPipeline`: a day (a date over daily rollups, a string over line items) and a series. */
export interface DailyRow {
  _id: Record<string, string | Date | null>;
  cost: number;
}

/**
 * The cost of each series per UTC day: one `$group` by day and dimensions. `day` is the day of a
 * row: `$chargePeriodStart` over daily rollups (each row starts at its day's midnight), the
 * formatted date over line items.
 */
export function dailySeriesPipeline(
  match: Record<string, unknown>,
  dimensions: readonly string[],
  day: unknown,
  metric = 'cost',
): PipelineStage[] {
  const id: Record<string, unknown> = { d: day };
  for (const name of dimensions) id[name] = seriesValue(name);
  return [{ $match: match }, { $group: { _id: id, cost: { $sum: `$${metric}` } } }] as PipelineStage[];
}

/** The day expression of `dailySeriesPipeline` over line items. */
export const LINE_ITEM_DAY = { $dateToString: { format: '%Y-%m-%d', date: '$chargePeriodStart' } };

export interface DailySeries {
  dimensions: Record<string, string | null>;
  key: string;
  /** Day number (days since 1970-01-01) of `values[0]`. */
  firstDay: number;
  /** One cost per day from the series' first day with data to the last day asked for; 0 on days without data. */
  values: Float64Array;
}

const dayOfRow = (value: string | Date | null | undefined): number | null =>
  value instanceof Date ? Math.floor(value.getTime() / 86_400_000) : typeof value === 'string' ? dayNumber(value) : null;

/**
 * Turns grouped rows into consecutive daily series ending on `lastDay`, each starting on its own
 * first day with data (a series that began last week has no weeks of zeros before it).
 */
export function buildSeries(rows: DailyRow[], dimensions: readonly string[], lastDay: number): DailySeries[] {
  const byKey = new Map<string, { dimensions: Record<string, string | null>; days: Map<number, number> }>();
  for (const row of rows) {
    const day = dayOfRow(row._id.d);
    if (day === null || day > lastDay) continue;
    const values: Record<string, string | null> = {};
    for (const name of dimensions) {
      const value = row._id[name];
      values[name] = value instanceof Date ? value.toISOString() : (value ?? null);
    }
    const key = seriesKeyOf(values);
    let entry = byKey.get(key);
    if (!entry) byKey.set(key, (entry = { dimensions: values, days: new Map() }));
    entry.days.set(day, (entry.days.get(day) ?? 0) + row.cost);
  }
  const series: DailySeries[] = [];
  for (const [key, entry] of byKey) {
    const firstDay = Math.min(...entry.days.keys());
    const values = new Float64Array(lastDay - firstDay + 1);
    for (const [day, cost] of entry.days) values[day - firstDay] = cost;
    series.push({ dimensions: entry.dimensions, key, firstDay, values });
  }
  return series.sort((a, b) => a.key.localeCompare(b.key));
}

/** The anomalies of one series on the days from `fromDay` on, with the figures a record holds. */
export function scoreSeries(series: DailySeries, fromDay: number, parameters: AnomalyDetectionParameters): AnomalyFigures[] {
  const from = Math.max(0, fromDay - series.firstDay);
  return detectAnomalies(series.values, series.firstDay, from, parameters).map((found) => ({
    dimensions: series.dimensions,
    seriesKey: series.key,
    day: isoDateOf(series.firstDay + found.index),
    expected: found.expected,
    actual: found.actual,
    impact: found.impact,
    score: found.score,
  }));
}
