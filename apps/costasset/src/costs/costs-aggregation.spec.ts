import { Aggregator } from 'mingo';
import { assembleCosts, costsPipeline, CostGroupRow, CostsPlan, CostsSource, parseGroupings } from './costs-aggregation';
import { csvRecord } from '@lib/csv';
import { costsCsvLines } from './costs-csv';
import { dayRowsBucket, rangeFilter, resolveRange } from './costs-range';

interface Row {
  providerName: string;
  region?: string;
  period: string;
  day: string;
  cost: number;
  billedCost: number;
  billingCurrency: string;
  tags?: { group: string; key: string; value: string }[];
}

const row = (providerName: string, period: string, cost: number, extra: Partial<Row> = {}): Row => ({
  providerName,
  period,
  day: `${period.slice(0, 4)}-${period.slice(4)}-15`,
  cost,
  billedCost: cost,
  billingCurrency: 'USD',
  ...extra,
});

const ROWS: Row[] = [
  row('aws', '202401', 10, { region: 'eu', tags: [{ group: 'team', key: 'owner', value: 'alpha' }] }),
  row('aws', '202403', 5.5, {
    region: 'us',
    tags: [
      { group: 'team', key: 'owner', value: 'beta' },
      { group: 'team', key: 'x:y', value: 'z' },
    ],
  }),
  row('azure', '202401', -2, { region: 'eu' }),
  row('gcp', '202402', 1e-7, { billedCost: 3, billingCurrency: 'EUR' }),
  row('oci', '202402', 1),
  row('aws', '202312', 100),
];

function plan(query: { groupBy?: string[]; metric?: CostsPlan['metric']; top?: number; granularity?: 'month' | 'day' }): CostsPlan {
  const range = resolveRange({ from: '202401', to: '202403', granularity: query.granularity }, 'x');
  return {
    range,
    groupBy: parseGroupings(query.groupBy ?? []),
    metric: query.metric ?? 'cost',
    top: query.top ?? 10,
    match: rangeFilter(range),
  };
}

/** Runs the pipeline through mingo (as the unit tests of the expression compiler do). */
function run(p: CostsPlan, currency = 'USD') {
  const docs = ROWS.map(({ day, ...rest }) => ({ ...rest, chargePeriodStart: new Date(`${day}T10:00:00Z`) }));
  const rows = new Aggregator(costsPipeline(p) as never).run(docs) as unknown as CostGroupRow[];
  return assembleCosts(rows, p, currency);
}

describe('cost explorer aggregation', () => {
  it('sums one total series over every bucket, unrounded', () => {
    const answer = run(plan({}));
    expect(answer.buckets).toEqual(['202401', '202402', '202403']);
    expect(answer.series).toHaveLength(1);
    expect(answer.series[0]).toMatchObject({ key: {}, values: [8, 1 + 1e-7, 5.5], lineItems: 5 });
    expect(answer.total).toBe(8 + 1 + 1e-7 + 5.5);
    expect(answer).toMatchObject({ source: 'line-items', currency: 'USD', groupBy: [] });
  });

  it('groups by dimensions with null for a missing value, largest absolute total first', () => {
    const answer = run(plan({ groupBy: ['providerName', 'region'] }));
    expect(answer.series.map((series) => series.key)).toEqual([
      { providerName: 'aws', region: 'eu' },
      { providerName: 'aws', region: 'us' },
      { providerName: 'azure', region: 'eu' },
      { providerName: 'oci', region: null },
      { providerName: 'gcp', region: null },
    ]);
    expect(answer.totals).toEqual([8, 1 + 1e-7, 5.5]);
  });

  it('keeps the top N and sums the rest into one other series, last', () => {
    const answer = run(plan({ groupBy: ['providerName'], top: 2 }));
    expect(answer.series.map((series) => [series.key, series.other ?? false, series.total])).toEqual([
      [{ providerName: 'aws' }, false, 15.5],
      [{ providerName: 'azure' }, false, -2],
      [{ providerName: null }, true, 1 + 1e-7],
    ]);
    expect(answer.series[2].lineItems).toBe(2);
  });

  it('groups by a tag value (keys may hold a colon); items without the tag are null', () => {
    expect(run(plan({ groupBy: ['tag:team:owner'] })).series.map((series) => [series.key, series.total])).toEqual([
      [{ 'tag:team:owner': 'alpha' }, 10],
      [{ 'tag:team:owner': 'beta' }, 5.5],
      [{ 'tag:team:owner': null }, -2 + 1e-7 + 1],
    ]);
    expect(run(plan({ groupBy: ['tag:team:x:y'] })).series[0].key).toEqual({ 'tag:team:x:y': null });
    expect(run(plan({ groupBy: ['tag:$team:owner'] })).series[0].key).toEqual({ 'tag:$team:owner': null });
  });

  it('splits billing-currency metrics by currency when the rows hold several, never adding currencies together', () => {
    const answer = run(plan({ groupBy: ['providerName'], metric: 'billedCost', top: 1 }));
    expect(answer.currency).toBeNull();
    expect(answer.groupBy).toEqual(['providerName', 'billingCurrency']);
    expect(answer.series.map((series) => [series.key, series.other ?? false, series.total])).toEqual([
      [{ providerName: 'aws', billingCurrency: 'USD' }, false, 15.5],
      [{ providerName: null, billingCurrency: 'EUR' }, true, 3],
      [{ providerName: null, billingCurrency: 'USD' }, true, -1],
    ]);
    const usdOnly = plan({ metric: 'billedCost' });
    usdOnly.match = { ...usdOnly.match, billingCurrency: 'USD' };
    expect(run(usdOnly)).toMatchObject({ currency: 'USD', groupBy: [] });
  });

  it('buckets by UTC day', () => {
    const answer = run(plan({ granularity: 'day' }));
    expect(answer.buckets).toHaveLength(31 + 29 + 31);
    expect(answer.totals[answer.buckets.indexOf('2024-01-15')]).toBe(8);
  });

  it('answers the same over daily rows grouped by their day start, days or months named when assembled', () => {
    const daily: CostsSource = { name: 'rollup', rollupLevel: 'day', count: '$lineItems', bucket: dayRowsBucket };
    // daily rollup rows: one per day, chargePeriodStart at midnight, counts in lineItems
    const docs = ROWS.map(({ day, ...rest }) => ({ ...rest, chargePeriodStart: new Date(`${day}T00:00:00Z`), lineItems: 2 }));
    for (const query of [{ granularity: 'day' as const }, { granularity: 'month' as const, days: true }]) {
      const p = plan(query);
      if (query.granularity === 'month') {
        p.range = resolveRange({ from: '2024-01-01', to: '2024-03-31', granularity: 'month' }, 'x');
        p.match = rangeFilter(p.range);
      }
      const rows = new Aggregator(costsPipeline(p, daily) as never).run(docs) as unknown as CostGroupRow[];
      expect(rows.every((entry) => entry._id.b instanceof Date)).toBe(true);
      const fromDays = assembleCosts(rows, p, 'USD', daily);
      const fromItems = run(p);
      expect({ ...fromDays, source: null, rollupLevel: null, series: null }).toEqual({
        ...fromItems,
        source: null,
        rollupLevel: null,
        series: null,
      });
      expect(fromDays.series.map((series) => series.lineItems)).toEqual(fromItems.series.map((series) => series.lineItems * 2));
      expect(fromDays).toMatchObject({ source: 'rollup', rollupLevel: 'day' });
    }
  });

  it('writes the long CSV form, neutralizing formulas and quoting as RFC 4180 asks', () => {
    const answer = run(plan({ groupBy: ['providerName'], top: 2 }));
    expect([...costsCsvLines(answer)]).toEqual([
      'bucket,providerName,amount,currency\r\n',
      '202401,aws,10,USD\r\n',
      '202401,azure,-2,USD\r\n',
      `202402,(other),${1 + 1e-7},USD\r\n`,
      '202403,aws,5.5,USD\r\n',
    ]);
    expect(csvRecord(['=HYPERLINK("x")', '+a', '-1', '@a', 'a,b', 'plain'], 'spreadsheet')).toBe(
      `"'=HYPERLINK(""x"")",'+a,-1,'@a,"a,b",plain\r\n`,
    );
  });
});
