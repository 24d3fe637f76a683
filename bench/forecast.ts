/**
 * `npm run bench:forecast -- [--series 1000] [--days 400] [--seed 1]`
 * Accuracy and speed of anomaly detection and forecasts, on generated daily costs with known
 * parts (tools/forecast/daily-costs.ts: trend, weekly pattern, noise, injected spikes and level
 * shifts). Prints:
 * - detection precision and recall on spikes of 3× the series' typical daily variation, and on
 *   spikes sized in standard deviations of the noise alone, beside a baseline detector in the same
 *   run (yesterday's cost + 3 standard deviations of the last 28 days, no weekly pattern);
 * - level shifts detected within two days of their start;
 * - the month-end forecast's error (MAPE) at day 10 and day 20 of each month, in a backtest over
 *   the last 12 months of every series, and how often the month's actual falls inside the 80%
 *   interval; beside the naive forecast (month-to-date × days in month / days so far);
 * - the time to score every day of every series.
 */
import { detectAnomalies, DEFAULT_ANOMALY_PARAMETERS, type DetectedAnomaly } from '../apps/costasset/src/forecasting/anomaly-detection';
import { forecastSeries } from '../apps/costasset/src/forecasting/forecast';
import { dayNumber, isoDateOf } from '../apps/costasset/src/forecasting/seasonal-model';
import { generateSeries, seededRandom, type GeneratedSeries, type SeriesShape } from '../tools/forecast/daily-costs';
import { numberArg } from './support/stats';

const seriesCount = numberArg('series', 1000);
const days = numberArg('days', 400);
const seed = numberArg('seed', 1);
const FIRST_DAY = dayNumber('2025-10-01');

interface Score {
  truePositives: number;
  falsePositives: number;
  spikes: number;
  shiftsFound: number;
  shifts: number;
}

/** Yesterday + 3 σ of the last 28 days: the rule many cost tools start from. */
function baselineDetector(values: Float64Array): DetectedAnomaly[] {
  const found: DetectedAnomaly[] = [];
  for (let i = 29; i < values.length; i++) {
    let sum = 0;
    for (let j = i - 28; j < i; j++) sum += values[j];
    const mean = sum / 28;
    let squares = 0;
    for (let j = i - 28; j < i; j++) squares += (values[j] - mean) ** 2;
    const sigma = Math.sqrt(squares / 27);
    const impact = values[i] - values[i - 1];
    if (impact > 3 * sigma && impact >= DEFAULT_ANOMALY_PARAMETERS.minImpact)
      found.push({ index: i, expected: values[i - 1], actual: values[i], impact, score: impact / sigma });
  }
  return found;
}

function score(series: GeneratedSeries[], detect: (values: Float64Array) => DetectedAnomaly[]): Score {
  const result: Score = { truePositives: 0, falsePositives: 0, spikes: 0, shiftsFound: 0, shifts: 0 };
  for (const one of series) {
    const flagged = new Set(detect(one.values).map((anomaly) => anomaly.index));
    const spikeDays = new Set(one.spikes.map((spike) => spike.index));
    // Days after a level shift's start differ from the old normal until the model adapts: they
    // are neither right nor wrong, and are left out of precision.
    const adapting = (index: number) => one.shifts.some((shift) => index >= shift.index && index < shift.index + 35);
    result.spikes += one.spikes.length;
    result.shifts += one.shifts.length;
    for (const spike of one.spikes) if (flagged.has(spike.index)) result.truePositives++;
    for (const shift of one.shifts) if (flagged.has(shift.index) || flagged.has(shift.index + 1)) result.shiftsFound++;
    for (const index of flagged) if (!spikeDays.has(index) && !adapting(index) && index >= 35) result.falsePositives++;
  }
  return result;
}

function generate(shape: Partial<SeriesShape>, offset: number): GeneratedSeries[] {
  const random = seededRandom(seed * 7919 + offset);
  const full: SeriesShape = { days, firstDay: FIRST_DAY, spikeRate: 0.02, spikeTypicalVariations: 3, shifts: 1, ...shape };
  return Array.from({ length: seriesCount }, () => generateSeries(random, full));
}

const ratio = (part: number, whole: number) => (whole === 0 ? '–' : (part / whole).toFixed(3));

function printDetection(): void {
  const cases: [string, Partial<SeriesShape>][] = [
    ['spikes of 3× the typical daily variation (target)', { spikeTypicalVariations: 3 }],
    ['spikes of 3σ of the noise', { spikeNoiseSigmas: 3 }],
    ['spikes of 5σ of the noise', { spikeNoiseSigmas: 5 }],
    ['spikes of 8σ of the noise', { spikeNoiseSigmas: 8 }],
  ];
  console.log(`\ndetection: ${seriesCount} series × ${days} days, parameters ${JSON.stringify(DEFAULT_ANOMALY_PARAMETERS)}`);
  console.log('| spikes | detector | precision | recall | shifts found within 2 days | false positives per 1,000 series-days |');
  console.log('|---|---|---|---|---|---|');
  cases.forEach(([label, shape], offset) => {
    const series = generate(shape, offset);
    const detectors: [string, (values: Float64Array) => DetectedAnomaly[]][] = [
      ['seasonal median + MAD (product)', (values) => detectAnomalies(values, FIRST_DAY, 0)],
      ['baseline: yesterday + 3σ(28 days)', baselineDetector],
    ];
    for (const [name, detect] of detectors) {
      const s = score(series, detect);
      const precision = ratio(s.truePositives, s.truePositives + s.falsePositives);
      const perThousand = ((s.falsePositives / (seriesCount * (days - 35))) * 1000).toFixed(2);
      console.log(
        `| ${label} | ${name} | ${precision} | ${ratio(s.truePositives, s.spikes)} | ${ratio(s.shiftsFound, s.shifts)} | ${perThousand} |`,
      );
    }
  });
}

function printForecastBacktest(): void {
  const series = generate({ spikeRate: 0, shifts: 0 }, 10);
  const lastDay = FIRST_DAY + days - 1;
  const months: number[] = [];
  for (let day = FIRST_DAY + 60; day <= lastDay; day++) if (isoDateOf(day).endsWith('-01')) months.push(day);
  const backtestMonths = months.filter((start) => start + 31 <= lastDay + 1).slice(-12);
  console.log(
    `\nmonth-end forecast backtest: ${seriesCount} series, ${backtestMonths.length} months ` +
      `(${isoDateOf(backtestMonths[0]).slice(0, 7)} to ${isoDateOf(backtestMonths.at(-1)!).slice(0, 7)}), no spikes or shifts`,
  );
  console.log('| day of month | MAPE product | MAPE naive (month-to-date × days / days so far) | actual inside the 80% interval |');
  console.log('|---|---|---|---|');
  for (const dayOfMonth of [10, 20]) {
    let errors = 0;
    let naiveErrors = 0;
    let inside = 0;
    let count = 0;
    for (const one of series) {
      for (const monthStart of backtestMonths) {
        const monthLength =
          dayNumber(
            new Date(
              Date.UTC(new Date(monthStart * 86_400_000).getUTCFullYear(), new Date(monthStart * 86_400_000).getUTCMonth() + 1, 1),
            ).toISOString(),
          ) - monthStart;
        const cutoff = monthStart - FIRST_DAY + dayOfMonth; // values[0..cutoff) known
        let actual = 0;
        let toDate = 0;
        for (let i = monthStart - FIRST_DAY; i < monthStart - FIRST_DAY + monthLength; i++) actual += one.values[i];
        for (let i = monthStart - FIRST_DAY; i < cutoff; i++) toDate += one.values[i];
        const forecast = forecastSeries(one.values.subarray(0, cutoff), isoDateOf(FIRST_DAY + cutoff - 1));
        errors += Math.abs(forecast.monthEnd.forecast - actual) / actual;
        naiveErrors += Math.abs((toDate * monthLength) / dayOfMonth - actual) / actual;
        if (actual >= forecast.monthEnd.lower && actual <= forecast.monthEnd.upper) inside++;
        count++;
      }
    }
    console.log(
      `| ${dayOfMonth} | ${((errors / count) * 100).toFixed(2)}% | ` +
        `${((naiveErrors / count) * 100).toFixed(2)}% | ${((inside / count) * 100).toFixed(1)}% |`,
    );
  }
}

function printTiming(): void {
  const series = generate({}, 20);
  const started = performance.now();
  let found = 0;
  for (const one of series) found += detectAnomalies(one.values, FIRST_DAY, 0).length;
  const detectSeconds = (performance.now() - started) / 1000;
  const latestStarted = performance.now();
  for (const one of series) detectAnomalies(one.values, FIRST_DAY, days - 1);
  const latestMs = performance.now() - latestStarted;
  const forecastStarted = performance.now();
  for (const one of series) forecastSeries(one.values, isoDateOf(FIRST_DAY + days - 1));
  const forecastMs = performance.now() - forecastStarted;
  console.log(`\ntiming: ${seriesCount} series × ${days} days`);
  console.log(`- every day of every series scored: ${detectSeconds.toFixed(2)} s (${found} anomalies)`);
  console.log(`- the latest day of every series (a daily run): ${latestMs.toFixed(0)} ms`);
  console.log(`- a forecast of every series (month end + 3 months): ${forecastMs.toFixed(0)} ms`);
}

console.log(`bench:forecast ${new Date().toISOString()} seed ${seed}`);
printDetection();
printForecastBacktest();
printTiming();
