/**
 * Daily cost series with known parts, for the forecast and anomaly benchmark and tests: a level
 * with a trend, a weekly pattern (quieter weekends), multiplicative noise, and injected spikes and
 * level shifts whose days and sizes are returned with the series.
 */

/** A small, seeded generator (mulberry32), so that every run sees the same series. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export interface GeneratedSeries {
  values: Float64Array;
  /** The series without spikes, shifts or noise: trend and weekly pattern only. */
  baseline: Float64Array;
  spikes: { index: number; size: number }[];
  shifts: { index: number; ratio: number }[];
  /** Standard deviation of the noise, as a share of the level. */
  noise: number;
}

export interface SeriesShape {
  days: number;
  /** Day number (since 1970-01-01) of the first value. */
  firstDay: number;
  /** Spikes per day (0.02 = one in fifty days). */
  spikeRate: number;
  /**
   * Size of each spike: `typical` × the series' typical daily variation, the standard deviation
   * of its daily costs over the four weeks before the spike (trend, weekly pattern and noise).
   */
  spikeTypicalVariations: number;
  /** Alternatively, the size in standard deviations of the noise alone (overrides the above). */
  spikeNoiseSigmas?: number;
  /** Level shifts per series (each +30% to +80%, from its day on). */
  shifts: number;
}

function standardDeviation(values: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i];
  const mean = sum / (to - from);
  let squares = 0;
  for (let i = from; i < to; i++) squares += (values[i] - mean) ** 2;
  return Math.sqrt(squares / (to - from - 1));
}

export function generateSeries(random: () => number, shape: SeriesShape): GeneratedSeries {
  const level = 50 * Math.exp(random() * Math.log(100)); // 50 to 5,000 a day
  const trend = level * (-0.001 + random() * 0.004); // −0.1% to +0.3% of the level a day
  const weekendDrop = 0.1 + random() * 0.3;
  const noise = 0.03 + random() * 0.07;
  const weekendDay = Math.floor(random() * 7);
  const baseline = new Float64Array(shape.days);
  const values = new Float64Array(shape.days);
  const shifts: GeneratedSeries['shifts'] = [];
  for (let s = 0; s < shape.shifts; s++) shifts.push({ index: 60 + Math.floor(random() * (shape.days - 90)), ratio: 0.3 + random() * 0.5 });
  for (let i = 0; i < shape.days; i++) {
    const weekday = (shape.firstDay + i) % 7;
    const weekend = weekday === weekendDay || weekday === (weekendDay + 1) % 7;
    let mean = (level + trend * i) * (weekend ? 1 - weekendDrop : 1);
    for (const shift of shifts) if (i >= shift.index) mean *= 1 + shift.ratio;
    baseline[i] = mean;
    values[i] = Math.max(0, mean * (1 + noise * normal(random)));
  }
  const spikes: GeneratedSeries['spikes'] = [];
  for (let i = 35; i < shape.days; i++) {
    if (random() >= shape.spikeRate) continue;
    if (shifts.some((shift) => i >= shift.index && i < shift.index + 28)) continue; // one change at a time
    if (spikes.length > 0 && i - spikes[spikes.length - 1].index < 7) continue;
    const size =
      shape.spikeNoiseSigmas !== undefined
        ? shape.spikeNoiseSigmas * noise * baseline[i]
        : shape.spikeTypicalVariations * standardDeviation(values, i - 28, i);
    values[i] += size;
    spikes.push({ index: i, size });
  }
  return { values, baseline, spikes, shifts, noise };
}
