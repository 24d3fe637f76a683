import { dayNumber, expectedCost, fitSeasonalModel, isoDateOf, weekdayOf, type SeasonalModel } from './seasonal-model';

/** z of the 90th percentile: an 80% interval is ±1.2816 σ. */
const Z_80 = 1.2816;

export interface ForecastInterval {
  /** The month, `YYYY-MM`. */
  period: string;
  /** Actual cost of the month's days up to the last day with data. */
  actual: number;
  forecast: number;
  lower: number;
  upper: number;
}

export interface SeriesForecast {
  monthEnd: ForecastInterval;
  nextMonths: ForecastInterval[];
}

export interface ForecastOptions {
  /** Days of history the model is fitted on (the latest ones). */
  windowDays?: number;
  /** Months after the current one. */
  months?: number;
}

function monthOf(day: number): string {
  return isoDateOf(day).slice(0, 7);
}

function firstDayOfNextMonth(day: number): number {
  const date = new Date(day * 86_400_000);
  return dayNumber(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString());
}

/**
 * The standard deviation of the error of a predicted sum of the `h` days from `firstAhead` days
 * after the anchor on: the days' own noise (h σ²), plus the fitted line's error (level and
 * slope, as in any least-squares prediction) and the weekday offsets' (σ² / inlier days of that
 * weekday, for each predicted day of it).
 */
function sumSigma(model: SeasonalModel, firstAhead: number, h: number): number {
  const sigma2 = model.sigma ** 2;
  const m = Math.max(model.inliers, 1);
  let distanceSum = 0;
  const daysByWeekday = new Array<number>(7).fill(0);
  for (let ahead = firstAhead; ahead < firstAhead + h; ahead++) {
    distanceSum += ahead - model.meanOffsetOfDays;
    daysByWeekday[weekdayOf(model.anchorDay + ahead)]++;
  }
  let variance = h * sigma2 + (h * h * sigma2) / m;
  if (model.spreadOfDays > 0 && model.slope !== 0) variance += (distanceSum * distanceSum * sigma2) / model.spreadOfDays;
  for (let w = 0; w < 7; w++) if (model.inliersByWeekday[w] > 0) variance += (daysByWeekday[w] ** 2 * sigma2) / model.inliersByWeekday[w];
  return Math.sqrt(variance);
}

function interval(period: string, actual: number, predicted: number, sigma: number): ForecastInterval {
  const forecast = actual + predicted;
  return { period, actual, forecast, lower: forecast - Z_80 * sigma, upper: forecast + Z_80 * sigma };
}

/**
 * Forecasts a daily cost series whose last value is the cost of `lastDay` (ISO date): the current
 * month's end (its actual days plus the predicted rest) and the following months, each with an
 * 80% prediction interval.
 */
export function forecastSeries(values: ArrayLike<number>, lastDay: string, options: ForecastOptions = {}): SeriesForecast {
  const windowDays = options.windowDays ?? 56;
  const last = dayNumber(lastDay);
  const start = Math.max(0, values.length - windowDays);
  const window = Float64Array.from({ length: values.length - start }, (_, i) => values[start + i]);
  // A day varies by at least 1% of the level, 5% while the history is shorter than four weeks: a
  // perfectly regular or very short history says little about the days to come.
  const model = fitSeasonalModel(window, last + 1, { minRelativeSigma: window.length >= 28 ? 0.01 : 0.05 });

  const month = monthOf(last);
  let actual = 0;
  for (let i = values.length - 1, day = last; i >= 0 && monthOf(day) === month; i--, day--) actual += values[i];

  const predictDays = (fromDay: number, toDay: number) => {
    let sum = 0;
    for (let day = fromDay; day < toDay; day++) sum += expectedCost(model, day - (last + 1));
    return sum;
  };
  const nextMonthStart = firstDayOfNextMonth(last);
  const remaining = nextMonthStart - (last + 1);
  const monthEnd = interval(month, actual, predictDays(last + 1, nextMonthStart), remaining > 0 ? sumSigma(model, 0, remaining) : 0);

  const nextMonths: ForecastInterval[] = [];
  let monthStart = nextMonthStart;
  for (let m = 0; m < (options.months ?? 3); m++) {
    const end = firstDayOfNextMonth(monthStart);
    const sigma = sumSigma(model, monthStart - (last + 1), end - monthStart);
    nextMonths.push(interval(monthOf(monthStart), 0, predictDays(monthStart, end), sigma));
    monthStart = end;
  }
  return { monthEnd, nextMonths };
}
