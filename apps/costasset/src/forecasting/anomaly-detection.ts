import { expectedCost, fitSeasonalModel, weekdayOf } from './seasonal-model';

export interface AnomalyDetectionParameters {
  /** Days of history each day is compared with. */
  windowDays: number;
  /** Least history before a day is scored at all. */
  minHistoryDays: number;
  /** Robust z-score (deviation over the window's robust standard deviation) a day must reach. */
  minScore: number;
  /** Least impact (actual − expected), in the tenant's currency. */
  minImpact: number;
  /** Least impact as a share of the expected cost (0.2 = 20%). */
  minImpactRatio: number;
}

export const DEFAULT_ANOMALY_PARAMETERS: AnomalyDetectionParameters = {
  windowDays: 56,
  minHistoryDays: 14,
  minScore: 3.5,
  minImpact: 10,
  minImpactRatio: 0.1,
};

function window(values: ArrayLike<number>, from: number, to: number): ArrayLike<number> {
  return values instanceof Float64Array ? values.subarray(from, to) : Array.prototype.slice.call(values, from, to);
}

export interface DetectedAnomaly {
  /** Index of the day in the series. */
  index: number;
  expected: number;
  actual: number;
  impact: number;
  score: number;
}

/**
 * Scores days `[from, values.length)` of a daily series (consecutive days, `firstDay` the day
 * number of `values[0]`) against the model fitted on the `windowDays` before each, and returns
 * the days whose cost rose above the expectation by at least the score, the impact and the
 * impact ratio. The window's medians are not moved by a few spikes, so flagged days stay in it as
 * they are: that way a level shift is flagged from its start until the window holds enough days at
 * the new level for its medians to move (about half the window), and then becomes the new normal.
 */
export function detectAnomalies(
  values: ArrayLike<number>,
  firstDay: number,
  from: number,
  parameters: AnomalyDetectionParameters = DEFAULT_ANOMALY_PARAMETERS,
): DetectedAnomaly[] {
  const found: DetectedAnomaly[] = [];
  for (let index = Math.max(from, parameters.minHistoryDays); index < values.length; index++) {
    const start = Math.max(0, index - parameters.windowDays);
    const model = fitSeasonalModel(window(values, start, index), firstDay + index, { minSigma: parameters.minImpact / 4 });
    const expected = expectedCost(model, 0);
    const actual = values[index];
    const impact = actual - expected;
    // The expectation's own error (weekday offset, level) widens the day's spread.
    const weekdayInliers = Math.max(model.inliersByWeekday[weekdayOf(firstDay + index)], 1);
    const spread = model.sigma * Math.sqrt(1 + 1 / weekdayInliers + 1 / Math.max(model.inliers, 1));
    const score = impact / spread;
    if (score < parameters.minScore || impact < parameters.minImpact) continue;
    if (impact < parameters.minImpactRatio * Math.abs(expected)) continue;
    found.push({ index, expected, actual, impact, score });
  }
  return found;
}
