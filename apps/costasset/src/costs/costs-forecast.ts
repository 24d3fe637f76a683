import { forecastSeries, type ForecastInterval } from '../forecasting/forecast';
import type { CostsAnswer } from './costs-aggregation';
import type { CostsForecastResponse, ForecastIntervalDto } from './dto/costs-forecast.dto';

/** Days of history the forecast's model is fitted on (before the current month's days). */
export const FORECAST_WINDOW_DAYS = 56;
export const FORECAST_MONTHS = 3;

const DAY_MS = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The days the forecast reads: the 56 days before the current month (UTC) and the month up to today. */
export function forecastRange(now = new Date()): { from: string; to: string } {
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  return { from: isoDay(monthStart - FORECAST_WINDOW_DAYS * DAY_MS), to: isoDay(now.getTime()) };
}

const asPeriod = (interval: ForecastInterval): ForecastIntervalDto => ({ ...interval, period: interval.period.replace('-', '') });

/**
 * Forecasts each series of an explorer answer by day: every series ends on the latest day holding
 * data of any of them (`asOf`), and starts on its own first day with data.
 */
export function forecastAnswer(answer: CostsAnswer): CostsForecastResponse {
  let last = -1;
  for (const series of answer.series) series.counts.forEach((count, index) => count > 0 && index > last && (last = index));
  const base = {
    source: answer.source,
    rollupLevel: answer.rollupLevel,
    metric: answer.metric,
    currency: answer.currency,
    groupBy: answer.groupBy,
    windowDays: FORECAST_WINDOW_DAYS,
    intervalLevel: 0.8,
  };
  if (last < 0) return { ...base, asOf: null, series: [] };
  const asOf = answer.buckets[last];
  return {
    ...base,
    asOf,
    series: answer.series.map((series) => {
      const first = Math.max(
        0,
        series.counts.findIndex((count) => count > 0),
      );
      const forecast = forecastSeries(series.values.slice(first, last + 1), asOf, {
        windowDays: FORECAST_WINDOW_DAYS,
        months: FORECAST_MONTHS,
      });
      return {
        key: series.key,
        ...(series.other ? { other: true } : {}),
        monthEnd: asPeriod(forecast.monthEnd),
        nextMonths: forecast.nextMonths.map(asPeriod),
      };
    }),
  };
}
