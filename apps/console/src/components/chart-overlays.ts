/**
 * What the explorer draws over its stacked chart, as plain data (no ECharts here): the forecast of
 * each series continuing its stack, with its 80% interval, and the anomalies of the series shown.
 */
import type { Anomaly, Costs, CostSeries, CostsForecast, ForecastSeries } from '../api/types';
import { previousPeriod } from './format';

export interface ForecastPoint {
  /** The top of the series' forecast in the stack (where the dashed line is drawn). */
  top: number;
  forecast: number;
  lower: number;
  upper: number;
  /** The anchor point: the last complete month's actual, where the dashed line starts. */
  actual?: boolean;
}

export interface ForecastLine {
  /** The index of the series in `costs.series`. */
  series: number;
  points: (ForecastPoint | null)[];
}

export interface ForecastLayers {
  /** The explorer's buckets followed by the forecast months after them. */
  buckets: string[];
  lines: ForecastLine[];
  asOf: string;
  monthEnd: string;
}

const keyOf = (key: Record<string, string | null>, other?: boolean) => (other ? 'other' : JSON.stringify(key));

/** The value of each series at each bucket stacked (the running sum in the series' order), as the stacked chart draws them. */
export function stackedTops(series: readonly Pick<CostSeries, 'values'>[], buckets: number): number[][] {
  const running = Array<number>(buckets).fill(0);
  return series.map((one) => running.map((_, index) => (running[index] += one.values[index] ?? 0)));
}

/**
 * The forecast layers of a monthly view whose range reaches the month before the forecast's month
 * end (a range that ends earlier is history: nothing is drawn); undefined otherwise. A series of the
 * chart that the forecast does not hold (ranked out of its top N) stacks as zero.
 */
export function forecastLayers(costs: Costs, forecast: CostsForecast | undefined): ForecastLayers | undefined {
  if (!forecast?.asOf || costs.granularity !== 'month' || forecast.series.length === 0 || costs.series.length === 0) return undefined;
  const byKey = new Map<string, ForecastSeries>(forecast.series.map((one) => [keyOf(one.key, one.other), one]));
  const first = forecast.series[0];
  const periods = [first.monthEnd.period, ...first.nextMonths.map((month) => month.period)];
  const last = costs.buckets[costs.buckets.length - 1];
  const anchor = previousPeriod(periods[0]);
  if (!last || last < anchor) return undefined;
  const buckets = [...costs.buckets, ...periods.filter((period) => period > last)];
  const anchorIndex = buckets.indexOf(anchor);
  const tops = stackedTops(costs.series, costs.buckets.length);
  const running = Array<number>(buckets.length).fill(0);
  const lines: ForecastLine[] = [];
  costs.series.forEach((series, index) => {
    const found = byKey.get(keyOf(series.key, series.other));
    const months = found ? [found.monthEnd, ...found.nextMonths] : [];
    const points = buckets.map((bucket, at): ForecastPoint | null => {
      const month = months.find((one) => one.period === bucket);
      if (periods.includes(bucket)) {
        const value = month ?? { forecast: 0, lower: 0, upper: 0 };
        running[at] += value.forecast;
        return { top: running[at], forecast: value.forecast, lower: value.lower, upper: value.upper };
      }
      if (at === anchorIndex) {
        const actual = series.values[at] ?? 0;
        return { top: tops[index][at], forecast: actual, lower: actual, upper: actual, actual: true };
      }
      return null;
    });
    if (found) lines.push({ series: index, points });
  });
  return lines.length ? { buckets, lines, asOf: forecast.asOf, monthEnd: periods[0] } : undefined;
}

/** Whether an anomaly's series lies inside a series of the chart: every dimension the chart groups by has its value. */
export function anomalyMatches(key: Record<string, string | null>, dimensions: Record<string, string | null>): boolean {
  return Object.entries(key).every(([dimension, value]) => dimension in dimensions && dimensions[dimension] === value);
}

/** The chart's bucket of an anomaly's day: the day itself, or its month (YYYYMM). */
export const bucketOfDay = (day: string, granularity: Costs['granularity']) =>
  granularity === 'day' ? day : day.slice(0, 7).replace('-', '');

export interface AnomalyMark {
  series: number;
  bucket: number;
  /** Where the mark sits: the top of the series' segment in the stack. */
  top: number;
  anomalies: Anomaly[];
}

/**
 * The anomalies (not dismissed) of the buckets and series shown, one mark per series and bucket.
 * A grouping the anomalies' dimensions do not hold (a region, a tag) matches none; the "Other" series
 * takes the anomalies of no series shown.
 */
export function anomalyMarks(costs: Costs, anomalies: readonly Anomaly[] | undefined): AnomalyMark[] {
  if (!anomalies?.length || costs.series.length === 0) return [];
  const tops = stackedTops(costs.series, costs.buckets.length);
  const marks = new Map<string, AnomalyMark>();
  for (const anomaly of anomalies) {
    if (anomaly.status === 'dismissed' || !costs.groupBy.every((dimension) => dimension in anomaly.dimensions)) continue;
    const bucket = costs.buckets.indexOf(bucketOfDay(anomaly.day, costs.granularity));
    if (bucket < 0) continue;
    let series = costs.series.findIndex((one) => !one.other && anomalyMatches(one.key, anomaly.dimensions));
    if (series < 0) series = costs.series.findIndex((one) => one.other);
    if (series < 0) continue;
    const id = `${series}:${bucket}`;
    const mark = marks.get(id) ?? { series, bucket, top: tops[series][bucket], anomalies: [] };
    mark.anomalies.push(anomaly);
    marks.set(id, mark);
  }
  return [...marks.values()];
}
