import request from 'supertest';
import { expectProblem } from '../support/problems';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';

const COSTS = '/api/costasset/v1/costs';

interface Series {
  key: Record<string, string | null>;
  other?: boolean;
  total: number;
  values: number[];
  lineItems: number;
}

const item = (
  providerName: string,
  period: string,
  cost: number,
  extra: Partial<SeedItem> & { chargeDay?: string; billingCurrency?: string; billedCost?: number; chargeCategory?: string } = {},
) => {
  const { chargeDay, ...rest } = extra;
  const start = new Date(`${chargeDay ?? `${period.slice(0, 4)}-${period.slice(4)}-10`}T08:00:00Z`);
  return {
    providerName,
    billingAccountId: `${providerName}-acct`,
    category: 'Compute',
    region: 'eu-west-1',
    period,
    cost,
    chargePeriodStart: start,
    chargePeriodEnd: new Date(start.getTime() + 3_600_000),
    ...rest,
  } as SeedItem;
};

/** The cost explorer over HTTP (through the gateway): grouping, filter, buckets, metrics, top-N, CSV, ranges and visibility. */
describe('costasset cost explorer (GET /costs)', () => {
  let platform: Platform;
  let admin: string;
  let alice: string;
  let bob: string;

  const costs = (token: string, query: Record<string, string | string[]> = {}) =>
    request(platform.costasset.url).get(COSTS).query(query).set('corelite-token', token);
  const keys = (res: request.Response) => res.body.series.map((series: Series) => series.key);

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    alice = await platform.token({ sub: 'alice' });
    // bob is in a team that no visibility group names
    ({ bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
    const authz = (path: string, body: object) =>
      request(platform.authz.url)
        .post(path)
        .set('corelite-token', admin)
        .send(body)
        .expect((res) => expect(res.status).toBeLessThan(300));
    await authz('/authorization/v2/teams', { team_code: 'AWS-TEAM', org_code: 'org', roles: [] });
    await authz('/authorization/v2/users', { user_id: 'alice' });
    await authz('/authorization/v2/userteam', { user_id: 'alice', team_code: 'AWS-TEAM' });
    await request(platform.costasset.url)
      .post('/api/costasset/v1/dynamicResourceGroups')
      .set('corelite-token', admin)
      .send({ _id: 'aws', type: 'visibility', expr: 'providerName == "aws"', context: { teams: ['AWS-TEAM'] } })
      .expect(200);
    await seedLineItems(platform, 'default', [
      item('aws', '202401', 100.125, {
        serviceName: 'EC2',
        tags: [{ group: 'team', key: 'owner', value: 'alpha' }],
        chargeDay: '2024-01-31',
      }),
      item('aws', '202402', 50, {
        serviceName: 'S3',
        category: 'Storage',
        tags: [{ group: 'team', key: 'owner', value: 'beta' }],
        chargeDay: '2024-02-01',
      }),
      item('aws', '202403', 0.000001, { serviceName: 'S3', category: 'Storage' }),
      item('azure', '202401', 30, { serviceName: 'VM', region: undefined as never, billingCurrency: 'EUR', billedCost: 27.5 }),
      item('azure', '202403', -5, { serviceName: 'VM', chargeCategory: 'Credit', billingCurrency: 'EUR', billedCost: -4.5 }),
      item('gcp', '202402', 12, { serviceName: '=cmd|calc', billingAccountName: 'Team "A", Ltd' }),
      item('oci', '202402', 3),
      item('aws', '202212', 999),
    ]);
    await seedLineItems(platform, 'other', [item('aws', '202401', 7777)]);
  });
  afterAll(() => platform.close());

  it('answers one total series over the 12 months ending with the latest period by default', async () => {
    const res = await costs(admin).expect(200);
    expect(res.body).toMatchObject({
      source: 'rollup',
      metric: 'cost',
      currency: 'USD',
      granularity: 'month',
      from: '202304',
      to: '202403',
      groupBy: [],
    });
    expect(res.body.buckets).toHaveLength(12);
    expect(res.body.series).toHaveLength(1);
    expect(res.body.series[0].values.slice(-3)).toEqual([130.125, 65, -5 + 0.000001]);
    expect(res.body.total).toBeCloseTo(190.125001, 9);
    expect(res.body.totals).toEqual(res.body.series[0].values);
  });

  it('groups by one, two and three dimensions, a missing value being null', async () => {
    const range = { from: '202401', to: '202403' };
    const one = await costs(admin, { ...range, groupBy: 'providerName' }).expect(200);
    expect(one.body.series.map((s: Series) => [s.key.providerName, s.total, s.lineItems])).toEqual([
      ['aws', 150.125001, 3],
      ['azure', 25, 2],
      ['gcp', 12, 1],
      ['oci', 3, 1],
    ]);
    expect(one.body.series[0].values).toEqual([100.125, 50, 0.000001]);
    const two = await costs(admin, { ...range, groupBy: 'providerName,region' }).expect(200);
    expect(keys(two)).toContainEqual({ providerName: 'azure', region: null });
    const three = await costs(admin, { ...range, groupBy: ['providerName', 'category', 'serviceName'] }).expect(200);
    expect(three.body.groupBy).toEqual(['providerName', 'category', 'serviceName']);
    expect(keys(three)).toContainEqual({ providerName: 'aws', category: 'Storage', serviceName: 'S3' });
    expect(three.body.series).toHaveLength(5);
  });

  it('groups by a tag, filters with an expression, and buckets by day', async () => {
    const byTag = await costs(admin, { from: '202401', to: '202403', groupBy: 'tag:team:owner' }).expect(200);
    expect(byTag.body.source).toBe('line-items');
    expect(byTag.body.series.map((s: Series) => [s.key['tag:team:owner'], s.total])).toEqual([
      ['alpha', 100.125],
      ['beta', 50],
      [null, 40.000001],
    ]);
    const filtered = await costs(admin, {
      from: '202401',
      to: '202403',
      groupBy: 'providerName',
      filter: 'category == "Storage" || providerName == "oci"',
    }).expect(200);
    expect(filtered.body.series.map((s: Series) => [s.key.providerName, s.total])).toEqual([
      ['aws', 50.000001],
      ['oci', 3],
    ]);
    const daily = await costs(admin, { from: '2024-01-31', to: '2024-02-01', granularity: 'day', groupBy: 'providerName' }).expect(200);
    expect(daily.body.buckets).toEqual(['2024-01-31', '2024-02-01']);
    expect(daily.body.series).toEqual([{ key: { providerName: 'aws' }, total: 150.125, values: [100.125, 50], lineItems: 2 }]);
  });

  it('answers billing-currency metrics per currency when the rows hold several', async () => {
    const billed = await costs(admin, { from: '202401', to: '202403', groupBy: 'providerName', metric: 'billedCost' }).expect(200);
    expect(billed.body.currency).toBeNull();
    expect(billed.body.groupBy).toEqual(['providerName', 'billingCurrency']);
    expect(keys(billed)).toContainEqual({ providerName: 'azure', billingCurrency: 'EUR' });
    const azure = billed.body.series.find((s: Series) => s.key.providerName === 'azure');
    expect(azure.total).toBe(23);
    const euroOnly = await costs(admin, { from: '202401', to: '202403', metric: 'billedCost', filter: 'providerName == "azure"' }).expect(
      200,
    );
    expect(euroOnly.body).toMatchObject({ currency: 'EUR', groupBy: [], total: 23 });
  });

  it('keeps the top N series and sums the rest into one other series, last', async () => {
    const res = await costs(admin, { from: '202401', to: '202403', groupBy: 'providerName', top: '2' }).expect(200);
    expect(res.body.series.map((s: Series) => [s.key, s.other ?? false, s.total, s.lineItems])).toEqual([
      [{ providerName: 'aws' }, false, 150.125001, 3],
      [{ providerName: 'azure' }, false, 25, 2],
      [{ providerName: null }, true, 15, 2],
    ]);
  });

  it('answers CSV as a download in the long form, with formula injection neutralized', async () => {
    const res = await costs(admin, { from: '202401', to: '202403', groupBy: 'providerName,serviceName', format: 'csv' }).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="costs-202401-202403.csv"');
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('bucket,providerName,serviceName,amount,currency');
    expect(lines).toContain('202401,aws,EC2,100.125,USD');
    expect(lines).toContain("202402,gcp,'=cmd|calc,12,USD");
    expect(lines).toContain('202403,azure,VM,-5,USD');
    expect(lines).toHaveLength(1 + 7);
    const accounts = await costs(admin, { from: '202402', to: '202402', groupBy: 'billingAccountName', format: 'csv', top: '1' }).expect(
      200,
    );
    expect(accounts.text).toBe('bucket,billingAccountName,amount,currency\r\n202402,aws-acct,50,USD\r\n202402,(other),15,USD\r\n');
    const named = await costs(admin, {
      from: '202402',
      to: '202402',
      groupBy: 'billingAccountName',
      format: 'csv',
      filter: 'providerName == "gcp"',
    }).expect(200);
    expect(named.text).toContain('202402,"Team ""A"", Ltd",12,USD');
  });

  it('refuses bad parameters, bad expressions and bad ranges with problems', async () => {
    expectProblem(await costs(admin, { groupBy: 'vendor' }), 400, 'VALIDATION_FAILED', ['groupBy']);
    expectProblem(await costs(admin, { groupBy: 'providerName,region,category,serviceName' }), 400, 'VALIDATION_FAILED', ['groupBy']);
    expectProblem(await costs(admin, { groupBy: 'tag:a:b,tag:c:d' }), 400, 'VALIDATION_FAILED', ['groupBy']);
    expectProblem(await costs(admin, { groupBy: 'tag:a/b:c' }), 400, 'VALIDATION_FAILED', ['groupBy']);
    expectProblem(await costs(admin, { metric: 'price', top: '51', granularity: 'week', format: 'xml' }), 400, 'VALIDATION_FAILED', [
      'metric',
      'top',
      'granularity',
      'format',
    ]);
    expectProblem(await costs(admin, { unknown: 'x' }), 400, 'VALIDATION_FAILED');
    const bad = await costs(admin, { filter: 'providerName == "aws" && region =' });
    expectProblem(bad, 400, 'INVALID_EXPRESSION');
    expect(bad.body.position).toBe(32);
    expectProblem(await costs(admin, { filter: 'period == ${period}' }), 400, 'INVALID_EXPRESSION');
    expectProblem(await costs(admin, { from: '202401', to: '2024-02-01' }), 400, 'COSTS_RANGE_INVALID');
    expectProblem(await costs(admin, { from: '202402', to: '202401' }), 400, 'COSTS_RANGE_INVALID');
    expectProblem(await costs(admin, { from: '201401', to: '202401' }), 400, 'COSTS_RANGE_INVALID');
    expectProblem(await costs(admin, { from: '2022-01-01', to: '2024-01-02' }), 400, 'COSTS_RANGE_INVALID');
    expectProblem(await costs(admin, { from: '202401' }), 400, 'COSTS_RANGE_INVALID');
    expectProblem(await costs(admin, { from: '2023-02-29', to: '2023-03-01' }), 400, 'VALIDATION_FAILED', ['from']);
    expectProblem(await request(platform.costasset.url).get(COSTS), 401, 'TOKEN_MISSING');
  });

  it('shows a member only what its visibility groups select, a member no group names nothing, and refuses a user in no team', async () => {
    await eventually(async () => {
      const res = await costs(alice, { from: '202401', to: '202403', groupBy: 'providerName' }).expect(200);
      expect(keys(res)).toEqual([{ providerName: 'aws' }]);
      // the visibility group only reads providerName: the rollups answer, visibility applied
      expect(res.body.source).toBe('rollup');
      expect(res.body.total).toBeCloseTo(150.125001, 9);
    });
    const widened = await costs(alice, {
      from: '202401',
      to: '202403',
      groupBy: 'providerName',
      filter: 'providerName == "azure" || providerName == "aws"',
    }).expect(200);
    expect(keys(widened)).toEqual([{ providerName: 'aws' }]);
    const defaults = await costs(alice).expect(200);
    expect(defaults.body.to).toBe('202403');
    const none = await costs(bob, { groupBy: 'providerName' }).expect(200);
    expect(none.body.series).toEqual([]);
    expect(none.body.total).toBe(0);
    expect(none.body.buckets).toHaveLength(12);
    expect(none.body.totals.every((value: number) => value === 0)).toBe(true);
    expectProblem(await costs(await platform.token({ sub: 'loner' }), { groupBy: 'providerName' }), 403, 'TEAM_REQUIRED');
  });

  it('answers the same from the rollups and from the line items', async () => {
    // always true, but reads tags: the planner has to sum the raw line items
    const raw = `(tag('z', 'z' == 'z') || tag('z', 'z' != 'z'))`;
    const queries: Record<string, string>[] = [
      { from: '202401', to: '202403', groupBy: 'providerName,region,chargeCategory' },
      { from: '2024-01-01', to: '2024-03-31', granularity: 'day', groupBy: 'serviceName', metric: 'billedCost' },
      { from: '202212', to: '202403', groupBy: 'billingAccountName', filter: 'category != "Storage"', top: '2' },
      { from: '202401', to: '202403', format: 'csv', groupBy: 'category,billingCurrency', metric: 'listCost' },
    ];
    for (const token of [admin, alice]) {
      for (const query of queries) {
        const fromRollups = await costs(token, query).expect(200);
        const fromLineItems = await costs(token, { ...query, filter: query.filter ? `(${query.filter}) && ${raw}` : raw }).expect(200);
        if (query.format === 'csv') {
          expect(fromRollups.text).toBe(fromLineItems.text);
          continue;
        }
        expect([fromRollups.body.source, fromLineItems.body.source]).toEqual(['rollup', 'line-items']);
        // days are read from the daily rollups only; periods by month from the monthly ones
        expect([fromRollups.body.rollupLevel, fromLineItems.body.rollupLevel]).toEqual([
          query.granularity === 'day' ? 'day' : 'month',
          null,
        ]);
        expect({ ...fromRollups.body, source: undefined, rollupLevel: undefined }).toEqual({
          ...fromLineItems.body,
          source: undefined,
          rollupLevel: undefined,
        });
      }
    }
  });

  it('never sums another tenant', async () => {
    const otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    const res = await costs(otherAdmin, { from: '202401', to: '202401' }).expect(200);
    expect(res.body.total).toBe(7777);
  });
});
