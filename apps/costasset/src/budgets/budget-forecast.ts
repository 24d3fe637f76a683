import { forecastSeries } from '../forecasting/forecast';
import { dayNumber, isoDateOf } from '../forecasting/seasonal-model';
import { addMonths } from './budget-periods';

/** Days of daily cost the forecast is fitted on (the latest ones with data). */
export const FORECAST_WINDOW_DAYS = 56;
/** Periods after the current one that get a forecast (the model's horizon); later ones get none. */
export const FORECAST_MONTHS = 3;

/** The first day (UTC midnight) whose cost the forecast may read, as of `today`. */
export const forecastWindowStart = (today: Date): Date =>
  new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - FORECAST_WINDOW_DAYS - 6));

/** The predicted cost of a period's days after the last day with data, with the 80% interval, relative to that period's actual. */
export interface PeriodOutlook {
  rest: number;
  lower: number;
  upper: number;
}

/**
 * The outlook per period (YYYYMM) from the daily costs (`YYYY-MM-DD` → cost) up to `today`: the
 * series runs from the first day with cost of the window to the last one (days between without
 * cost count 0; days after `today` are left out), and `forecastSeries` extends it to the end of the
 * last day's month and the months after it, up to `lastPeriod`. Empty when no day has cost.
 */
export function outlookByPeriod(costByDay: ReadonlyMap<string, number>, today: string, lastPeriod: string): Map<string, PeriodOutlook> {
  const days = [...costByDay.keys()].filter((day) => day <= today).sort();
  const outlook = new Map<string, PeriodOutlook>();
  if (days.length === 0) return outlook;
  const first = dayNumber(days[0]);
  const last = dayNumber(days[days.length - 1]);
  const values = Float64Array.from({ length: last - first + 1 }, (_, i) => costByDay.get(isoDateOf(first + i)) ?? 0);
  const lastDay = isoDateOf(last);
  const lastDayPeriod = lastDay.slice(0, 7).replace('-', '');
  let months = 0;
  while (addMonths(lastDayPeriod, months) < lastPeriod) months++;
  const { monthEnd, nextMonths } = forecastSeries(values, lastDay, { windowDays: FORECAST_WINDOW_DAYS, months });
  for (const interval of [monthEnd, ...nextMonths]) {
    outlook.set(interval.period.replace('-', ''), {
      rest: interval.forecast - interval.actual,
      lower: interval.lower - interval.actual,
      upper: interval.upper - interval.actual,
    });
  }
  return outlook;
}
