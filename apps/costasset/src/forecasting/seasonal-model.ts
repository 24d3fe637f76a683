/**
 * A robust model of a daily cost series: a level with a linear trend plus an additive offset per
 * weekday, fitted on a window of past days with medians only, so that a few spikes in the window
 * do not move it. Anomaly detection scores a day against the model fitted on the days before it;
 * forecasts extend the model fitted on the latest days.
 */

/** Days since 1970-01-01 (UTC) of an ISO date `YYYY-MM-DD`. */
export function dayNumber(isoDate: string): number {
  return Math.floor(Date.parse(`${isoDate.slice(0, 10)}T00:00:00Z`) / 86_400_000);
}

export function isoDateOf(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/** 0 = Thursday (1970-01-01); only equality of weekdays matters here. */
export const weekdayOf = (day: number): number => ((day % 7) + 7) % 7;

/** Median of `values[from..to)`, reordering a copy (the caller's array is left alone). */
export function median(values: ArrayLike<number>, from = 0, to = values.length): number {
  const n = to - from;
  if (n <= 0) return NaN;
  const copy = new Float64Array(n);
  for (let i = 0; i < n; i++) copy[i] = values[from + i];
  copy.sort();
  const middle = n >> 1;
  return n % 2 === 1 ? copy[middle] : (copy[middle - 1] + copy[middle]) / 2;
}

/** 1.4826 × MAD estimates the standard deviation of normal noise, ignoring outliers. */
const MAD_TO_SIGMA = 1.4826;

export interface SeasonalModel {
  /** The expected cost of the day the model was fitted for (`anchorDay`), trend included. */
  level: number;
  /** Change of the level per day. */
  slope: number;
  /** Additive offset of each weekday (index `weekdayOf(day)`), 0 when the window is too short. */
  weekdayOffsets: number[];
  /** Standard deviation of a day's cost around the model, floored (see `FitOptions`). */
  sigma: number;
  anchorDay: number;
  /** Days of history the model saw, and how many of them were not outliers. */
  days: number;
  inliers: number;
  /** Inlier days per weekday, and Σ(x − x̄)² of their distances from the anchor (the slope's precision). */
  inliersByWeekday: number[];
  spreadOfDays: number;
  /** Mean distance of the inlier days from the anchor (negative: they lie before it). */
  meanOffsetOfDays: number;
}

export interface FitOptions {
  /** Least daily noise assumed, as a share of the level (a flat series would otherwise score ∞). */
  minRelativeSigma?: number;
  /** Least daily noise assumed, in money. */
  minSigma?: number;
}

/** A day further than this many robust standard deviations from the first fit is an outlier. */
const OUTLIER_SIGMAS = 3.5;

interface RobustFit {
  level: number;
  slope: number;
  offsets: number[];
  sigma: number;
}

/** The first fit, from medians only: weekday medians, the median weekly change, the median level. */
function robustFit(values: ArrayLike<number>, firstDay: number): RobustFit {
  const n = values.length;
  const center = median(values);
  const offsets = new Array<number>(7).fill(0);
  if (n >= 14) {
    const byWeekday: number[][] = [[], [], [], [], [], [], []];
    for (let i = 0; i < n; i++) byWeekday[weekdayOf(firstDay + i)].push(values[i]);
    for (let w = 0; w < 7; w++) offsets[w] = byWeekday[w].length > 0 ? median(byWeekday[w]) - center : 0;
    centre(offsets);
  }
  const deseasonalised = new Float64Array(n);
  for (let i = 0; i < n; i++) deseasonalised[i] = values[i] - offsets[weekdayOf(firstDay + i)];
  let slope = 0;
  if (n >= 21) {
    const weekly = new Float64Array(n - 7);
    for (let i = 0; i + 7 < n; i++) weekly[i] = (deseasonalised[i + 7] - deseasonalised[i]) / 7;
    slope = median(weekly);
  }
  const projected = new Float64Array(n);
  for (let i = 0; i < n; i++) projected[i] = deseasonalised[i] + slope * (n - i);
  const level = median(projected);
  for (let i = 0; i < n; i++) projected[i] = Math.abs(projected[i] - level);
  return { level, slope, offsets, sigma: MAD_TO_SIGMA * median(projected) };
}

function centre(offsets: number[]): void {
  const mean = offsets.reduce((sum, offset) => sum + offset, 0) / 7;
  for (let w = 0; w < 7; w++) offsets[w] -= mean;
}

/**
 * Fits the model on `values` (consecutive days, the last one the day before `anchorDay`): a
 * first fit from medians finds the outliers (spikes), then weekday offsets, level and slope are
 * fitted by least squares on the other days, which is several times more precise than medians
 * for the same window. Weekday offsets need two weeks of history, the trend three.
 */
export function fitSeasonalModel(values: ArrayLike<number>, anchorDay: number, options: FitOptions = {}): SeasonalModel {
  const n = values.length;
  const firstDay = anchorDay - n;
  const first = robustFit(values, firstDay);
  const limit = OUTLIER_SIGMAS * Math.max(first.sigma, 1e-9);
  const inlier = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const fitted = first.level - first.slope * (n - i) + first.offsets[weekdayOf(firstDay + i)];
    inlier[i] = Math.abs(values[i] - fitted) <= limit ? 1 : 0;
  }
  const offsets = new Array<number>(7).fill(0);
  const inliersByWeekday = new Array<number>(7).fill(0);
  if (n >= 14) {
    const sums = new Array<number>(7).fill(0);
    for (let i = 0; i < n; i++) {
      if (!inlier[i]) continue;
      const w = weekdayOf(firstDay + i);
      sums[w] += values[i] - (first.level - first.slope * (n - i));
      inliersByWeekday[w]++;
    }
    for (let w = 0; w < 7; w++) offsets[w] = inliersByWeekday[w] > 0 ? sums[w] / inliersByWeekday[w] : first.offsets[w];
    centre(offsets);
  } else {
    for (let i = 0; i < n; i++) if (inlier[i]) inliersByWeekday[weekdayOf(firstDay + i)]++;
  }
  // Least squares of the deseasonalised inliers on their distance x = i − n from the anchor.
  let m = 0;
  let sumX = 0;
  let sumZ = 0;
  for (let i = 0; i < n; i++) {
    if (!inlier[i]) continue;
    m++;
    sumX += i - n;
    sumZ += values[i] - offsets[weekdayOf(firstDay + i)];
  }
  const meanX = m > 0 ? sumX / m : 0;
  const meanZ = m > 0 ? sumZ / m : first.level;
  let sxx = 0;
  let sxz = 0;
  for (let i = 0; i < n; i++) {
    if (!inlier[i]) continue;
    const dx = i - n - meanX;
    sxx += dx * dx;
    sxz += dx * (values[i] - offsets[weekdayOf(firstDay + i)] - meanZ);
  }
  const slope = n >= 21 && sxx > 0 ? sxz / sxx : 0;
  const level = meanZ - slope * meanX;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    if (!inlier[i]) continue;
    squares += (values[i] - (level + slope * (i - n) + offsets[weekdayOf(firstDay + i)])) ** 2;
  }
  const parameters = (n >= 14 ? 6 : 0) + (n >= 21 ? 2 : 1);
  const fittedSigma = m > parameters ? Math.sqrt(squares / (m - parameters)) : first.sigma;
  const floor = Math.max(options.minSigma ?? 0, (options.minRelativeSigma ?? 0.01) * Math.abs(level));
  return {
    level,
    slope,
    weekdayOffsets: offsets,
    sigma: Math.max(fittedSigma, floor),
    anchorDay,
    days: n,
    inliers: m,
    inliersByWeekday,
    spreadOfDays: sxx,
    meanOffsetOfDays: meanX,
  };
}

/** The model's expected cost `ahead` days after its anchor day (0 = the anchor day itself). */
export function expectedCost(model: SeasonalModel, ahead: number): number {
  return model.level + model.slope * ahead + model.weekdayOffsets[weekdayOf(model.anchorDay + ahead)];
}
