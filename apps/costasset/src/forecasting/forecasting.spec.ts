import { detectAnomalies, DEFAULT_ANOMALY_PARAMETERS } from './anomaly-detection';
import { forecastSeries } from './forecast';
import { dayNumber, expectedCost, fitSeasonalModel, isoDateOf, weekdayOf } from './seasonal-model';
import { generateSeries, normal, seededRandom } from '../../../../tools/forecast/daily-costs';

const FIRST = dayNumber('2026-01-01');

/** 1,000 a day growing by 2 a day, 300 less on two weekdays, with 3% noise. */
function knownSeries(days: number, seed = 1): Float64Array {
  const random = seededRandom(seed);
  return Float64Array.from({ length: days }, (_, i) => {
    const weekend = weekdayOf(FIRST + i) >= 5;
    return (1000 + 2 * i - (weekend ? 300 : 0)) * (1 + 0.03 * normal(random));
  });
}

describe('the seasonal model', () => {
  it('recovers trend and weekday pattern from eight weeks of noisy days', () => {
    const values = knownSeries(56);
    const model = fitSeasonalModel(values, FIRST + 56);
    expect(model.slope).toBeGreaterThan(1);
    expect(model.slope).toBeLessThan(3);
    const weekday = expectedCost(
      model,
      [0, 1, 2, 3, 4, 5, 6].find((ahead) => weekdayOf(FIRST + 56 + ahead) < 5)!,
    );
    const weekend = expectedCost(
      model,
      [0, 1, 2, 3, 4, 5, 6].find((ahead) => weekdayOf(FIRST + 56 + ahead) >= 5)!,
    );
    expect(weekday - weekend).toBeGreaterThan(240);
    expect(weekday - weekend).toBeLessThan(360);
  });

  it('is not moved by a spike in its window', () => {
    const values = knownSeries(56);
    const calm = fitSeasonalModel(values, FIRST + 56);
    values[40] *= 10;
    const spiked = fitSeasonalModel(values, FIRST + 56);
    expect(Math.abs(expectedCost(spiked, 0) - expectedCost(calm, 0))).toBeLessThan(0.01 * expectedCost(calm, 0));
    expect(spiked.inliers).toBe(calm.inliers - 1);
  });

  it('gives a flat series a least spread, so that no day scores infinitely', () => {
    const model = fitSeasonalModel(new Float64Array(30).fill(100), FIRST + 30);
    expect(model.sigma).toBeCloseTo(1, 6);
    expect(expectedCost(model, 3)).toBeCloseTo(100, 6);
  });
});

describe('anomaly detection', () => {
  it('flags a spike on its day and nothing on a calm series', () => {
    const values = knownSeries(120, 3);
    expect(detectAnomalies(values, FIRST, 0)).toEqual([]);
    values[100] += 400;
    const found = detectAnomalies(values, FIRST, 0);
    expect(found.map((anomaly) => anomaly.index)).toEqual([100]);
    expect(found[0].impact).toBeGreaterThan(300);
    expect(found[0].impact).toBeLessThan(500);
  });

  it('ignores rises below the least impact in money or in percent', () => {
    const values = knownSeries(120, 3);
    values[100] += 400;
    expect(detectAnomalies(values, FIRST, 0, { ...DEFAULT_ANOMALY_PARAMETERS, minImpact: 1000 })).toEqual([]);
    expect(detectAnomalies(values, FIRST, 0, { ...DEFAULT_ANOMALY_PARAMETERS, minImpactRatio: 0.5 })).toEqual([]);
  });

  it('flags a level shift from its start and accepts it as normal once the window has moved', () => {
    const values = knownSeries(200, 4).map((value, i) => (i >= 100 ? value * 1.6 : value));
    const days = detectAnomalies(values, FIRST, 0).map((anomaly) => anomaly.index);
    expect(days[0]).toBe(100);
    expect(days.every((day) => day >= 100 && day < 140)).toBe(true);
  });

  it('scores only the days from `from` on (a run after an import)', () => {
    const values = knownSeries(120, 3);
    values[50] += 400;
    values[110] += 400;
    expect(detectAnomalies(values, FIRST, 100).map((anomaly) => anomaly.index)).toEqual([110]);
  });
});

describe('forecasts', () => {
  it('ends the month within 2% on a series with known trend and weekly pattern, the truth inside the 80% interval', () => {
    const random = seededRandom(9);
    let errors = 0;
    let inside = 0;
    const runs = 40;
    for (let run = 0; run < runs; run++) {
      const series = generateSeries(random, { days: 200, firstDay: FIRST, spikeRate: 0, spikeTypicalVariations: 3, shifts: 0 });
      const cutoff = dayNumber('2026-06-21') - FIRST;
      const forecast = forecastSeries(series.values.subarray(0, cutoff), isoDateOf(FIRST + cutoff - 1));
      let truth = 0;
      for (let i = dayNumber('2026-06-01') - FIRST; i < dayNumber('2026-07-01') - FIRST; i++) truth += series.values[i];
      expect(forecast.monthEnd.period).toBe('2026-06');
      errors += Math.abs(forecast.monthEnd.forecast - truth) / truth;
      if (truth >= forecast.monthEnd.lower && truth <= forecast.monthEnd.upper) inside++;
    }
    expect(errors / runs).toBeLessThan(0.02);
    expect(inside / runs).toBeGreaterThan(0.6);
  });

  it('counts the month-to-date as actual and forecasts the three next months with widening intervals', () => {
    const values = knownSeries(90);
    const lastDay = isoDateOf(FIRST + 89); // 2026-03-31
    const forecast = forecastSeries(values, lastDay);
    let march = 0;
    for (let i = dayNumber('2026-03-01') - FIRST; i < 90; i++) march += values[i];
    expect(forecast.monthEnd).toMatchObject({ period: '2026-03', actual: march, forecast: march, lower: march, upper: march });
    expect(forecast.nextMonths.map((month) => month.period)).toEqual(['2026-04', '2026-05', '2026-06']);
    const widths = forecast.nextMonths.map((month) => month.upper - month.lower);
    expect(widths[1]).toBeGreaterThan(widths[0]);
    expect(widths[2]).toBeGreaterThan(widths[1]);
    // April: 30 days of about 1,000 + 2 × day, less the weekends
    expect(forecast.nextMonths[0].forecast).toBeGreaterThan(30_000);
    expect(forecast.nextMonths[0].forecast).toBeLessThan(36_000);
  });

  it('gives a perfectly regular or very short history an interval of some width, never a point', () => {
    const flat = forecastSeries(new Float64Array(60).fill(100), isoDateOf(FIRST + 59));
    expect(flat.nextMonths[0].upper - flat.nextMonths[0].lower).toBeGreaterThan(0.005 * flat.nextMonths[0].forecast);
    const short = forecastSeries(new Float64Array(5).fill(100), isoDateOf(FIRST + 4));
    expect(short.monthEnd.upper - short.monthEnd.lower).toBeGreaterThan(0.05 * (short.monthEnd.forecast - short.monthEnd.actual));
  });
});
