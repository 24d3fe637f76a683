import request from 'supertest';
import { expectProblem } from '../support/problems';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { Platform, startPlatform } from '../support/platform';

const FORECAST = '/api/costasset/v1/costs/forecast';
const DAY_MS = 86_400_000;
const today = Math.floor(Date.now() / DAY_MS);
const FIRST = today - 120;

/** 1,000 a day growing by 3 a day, 250 less on Saturdays and Sundays, ±2% noise; the second provider a flat 100. */
const compute = (day: number) => {
  const weekday = new Date(day * DAY_MS).getUTCDay();
  const noise = 1 + (0.02 * (((day * 7919) % 11) - 5)) / 5;
  return (1000 + 3 * (day - FIRST) - (weekday === 0 || weekday === 6 ? 250 : 0)) * noise;
};
const small = (day: number) => 100 + (((day * 7919) % 5) - 2);

const periodOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 7).replace('-', '');

function items(): SeedItem[] {
  const out: SeedItem[] = [];
  // every day up to yesterday: the forecast starts today
  for (let day = FIRST; day < today; day++) {
    for (const [providerName, cost] of [
      ['aws', compute(day)],
      ['gcp', small(day)],
    ] as const) {
      const start = new Date(day * DAY_MS + 6 * 3_600_000);
      out.push({
        providerName,
        billingAccountId: `${providerName}-acct`,
        category: 'Compute',
        region: 'eu-west-1',
        period: periodOf(day),
        cost,
        chargePeriodStart: start,
        chargePeriodEnd: new Date(start.getTime() + 3_600_000),
      } as SeedItem);
    }
  }
  return out;
}

interface Interval {
  period: string;
  actual: number;
  forecast: number;
  lower: number;
  upper: number;
}

/** The forecast route: month-end within the documented error on a known trend and weekly pattern, intervals, groupBy, errors. */
describe('costasset cost forecast (GET /costs/forecast)', () => {
  let platform: Platform;
  let admin: string;
  const forecast = (query: Record<string, string> = {}) =>
    request(platform.costasset.url).get(FORECAST).query(query).set('corelite-token', admin);

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    await seedLineItems(platform, 'default', items());
  }, 120_000);
  afterAll(() => platform?.close());

  it('ends the month within 3% of the truth with an interval around it, and forecasts three more months', async () => {
    const res = await forecast({ groupBy: 'providerName' }).expect(200);
    const yesterday = new Date((today - 1) * DAY_MS).toISOString().slice(0, 10);
    expect(res.body).toMatchObject({ metric: 'cost', groupBy: ['providerName'], asOf: yesterday, windowDays: 56, intervalLevel: 0.8 });
    const aws = res.body.series.find((series: { key: { providerName: string } }) => series.key.providerName === 'aws');
    expect(res.body.series.map((series: { key: { providerName: string } }) => series.key.providerName)).toEqual(['aws', 'gcp']);

    const month = periodOf(today - 1);
    const monthStart = Math.floor(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(4)) - 1, 1) / DAY_MS);
    const monthEnd = Math.floor(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(4)), 1) / DAY_MS);
    let truth = 0;
    let actual = 0;
    for (let day = monthStart; day < monthEnd; day++) {
      truth += compute(day);
      if (day < today) actual += compute(day);
    }
    const end: Interval = aws.monthEnd;
    expect(end.period).toBe(month);
    expect(end.actual).toBeCloseTo(actual, 6);
    expect(Math.abs(end.forecast - truth) / truth).toBeLessThan(0.03);
    expect(end.lower).toBeLessThanOrEqual(end.forecast);
    expect(end.upper).toBeGreaterThanOrEqual(end.forecast);
    const next: Interval[] = aws.nextMonths;
    expect(next).toHaveLength(3);
    for (const interval of next) {
      expect(interval.actual).toBe(0);
      expect(interval.lower).toBeLessThan(interval.forecast);
      expect(interval.upper).toBeGreaterThan(interval.forecast);
    }
    // the next month: its days at the trend, within 5%
    const nextStart = monthEnd;
    const nextEnd = Math.floor(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(4)) + 1, 1) / DAY_MS);
    let nextTruth = 0;
    for (let day = nextStart; day < nextEnd; day++) nextTruth += compute(day);
    expect(Math.abs(next[0].forecast - nextTruth) / nextTruth).toBeLessThan(0.05);
  });

  it('without groupBy answers one series, the total; a filter narrows it', async () => {
    const total = await forecast().expect(200);
    expect(total.body.series).toHaveLength(1);
    expect(total.body.series[0].key).toEqual({});
    const gcp = await forecast({ filter: 'providerName == "gcp"' }).expect(200);
    expect(gcp.body.series).toHaveLength(1);
    expect(gcp.body.series[0].monthEnd.forecast).toBeLessThan(total.body.series[0].monthEnd.forecast / 5);
  });

  it('refuses bad parameters with problem+json 400', async () => {
    expectProblem(await forecast({ groupBy: 'nonsense' }), 400, 'VALIDATION_FAILED', ['groupBy']);
    expectProblem(await forecast({ metric: 'weight' }), 400, 'VALIDATION_FAILED', ['metric']);
    expectProblem(await forecast({ from: '202401', to: '202402' }), 400, 'VALIDATION_FAILED');
    expectProblem(await forecast({ filter: 'providerName ==' }), 400, 'INVALID_EXPRESSION');
  });
});
