import type { PipelineStage } from 'mongoose';
import { detectAnomalies, type AnomalyDetectionParameters } from '../forecasting/anomaly-detection';
import { dayNumber, isoDateOf } from '../forecasting/seasonal-model';
import type { AnomalyFigures } from './anomaly.repository';

/**
 * The dimensions a daily series is cut by today: provider × billing account × service, all three
 * rolled up. Activated tags and virtual dimensions will add entries; everything below takes the
 * list as data (a series is a map dimension → value), so adding one changes no code here.
 */
export const SERIES_DIMENSIONS: readonly string[] = ['providerName', 'billingAccountId', 'serviceName'];

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
  for (const name of dimensions) id[name] = { $ifNull: [`$${name}`, null] };
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
