import request from 'supertest';
import { expectProblem } from '../support/problems';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';

const API = '/api/costasset/v1';

interface Series {
  key: Record<string, string | null>;
  total: number;
}

const tag = (group: string, key: string, value: string) => ({ group, key, value });
const item = (cost: number, tags: SeedItem['tags'], extra: Partial<SeedItem> = {}): SeedItem => ({
  providerName: 'aws',
  billingAccountId: 'acct-1',
  category: 'Compute',
  serviceName: 'EC2',
  region: 'eu-west-1',
  period: '202403',
  chargePeriodStart: new Date('2024-03-05T10:00:00Z'),
  cost,
  tags,
  ...extra,
});

// three spellings of one environment tag, a team tag in two groups, and rows with none
const ITEMS: SeedItem[] = [
  item(100, [tag('default', 'env', 'prod'), tag('team', 'owner', 'alpha')]),
  item(40, [tag('default', 'Env', 'prod'), tag('team', 'owner', 'beta')]),
  item(25, [tag('default', 'environment', 'production')], { serviceName: 'S3', category: 'Storage' }),
  item(10, [tag('default', 'env', 'dev'), tag('ops', 'owner', 'alpha')]),
  item(7.5, [], { providerName: 'azure', billingAccountId: 'acct-2' }),
  item(2.25, [tag('team', 'owner', 'alpha')], { period: '202402', chargePeriodStart: new Date('2024-02-10T10:00:00Z') }),
];

const PRODUCTION = "tag('default', 'env' == 'prod') || tag('default', 'Env' == 'prod') || tag('default', 'environment' == 'production')";

/**
 * Allocation through the gateway: tag keys with their coverage and activation, a virtual dimension
 * merging tag variants, its preview, a retroactive change seen in the explorer, both answered from
 * rollups once their job ends, and a visibility group over a dimension (docs/allocation.md).
 */
describe('costasset allocation (tag keys, virtual dimensions)', () => {
  let platform: Platform;
  let admin: string;
  let carol: string;
  const api = () => request(platform.gateway.url);
  const costs = (token: string, query: Record<string, string>) =>
    api()
      .get(`${API}/costs`)
      .query({ from: '202402', to: '202403', ...query })
      .set('corelite-token', token)
      .expect(200);
  const totals = (res: request.Response) =>
    Object.fromEntries(res.body.series.map((series: Series) => [Object.values(series.key).join('|'), series.total]));
  const settled = () =>
    eventually(
      async () => {
        const overview = await api().get(`${API}/allocation`).set('corelite-token', admin).expect(200);
        expect(overview.body.rollups.current).toBe(true);
        const job = await api().get(`${API}/jobs/${overview.body.rollups.jobId}`).set('corelite-token', admin).expect(200);
        expect(job.body.status).toBe('succeeded');
      },
      30_000,
      200,
    );

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    ({ carol } = await teamMembers(platform, { code: 'PROD-TEAM' }, ['carol']));
    await seedLineItems(platform, 'default', ITEMS);
  });

  afterAll(async () => {
    await platform?.close();
  });

  it('lists the tag keys with the share of cost carrying each, and activates one as a rollup dimension', async () => {
    const observed = await api().get(`${API}/allocation/tagKeys`).query({ from: '202403' }).set('corelite-token', admin).expect(200);
    expect(observed.body.totalCost).toBe(182.5);
    const coverage = Object.fromEntries(
      observed.body.items.map((entry: { group: string; key: string; coverage: number }) => [`${entry.group}:${entry.key}`, entry.coverage]),
    );
    expect(coverage).toEqual({
      'default:env': 110 / 182.5,
      'default:Env': 40 / 182.5,
      'default:environment': 25 / 182.5,
      'team:owner': 140 / 182.5,
      'ops:owner': 10 / 182.5,
    });

    // before activation, grouping by the tag reads the line items
    expect((await costs(admin, { groupBy: 'tag:team:owner' })).body.source).toBe('line-items');
    const activated = await api()
      .post(`${API}/allocation/tagKeys/activate`)
      .set('corelite-token', admin)
      .send({ group: 'team', key: 'owner' })
      .expect(200);
    expect(activated.body.tagKeys).toEqual([expect.objectContaining({ group: 'team', key: 'owner', activatedBy: 'admin' })]);
    expectProblem(
      await api().post(`${API}/allocation/tagKeys/activate`).set('corelite-token', admin).send({ group: 'team', key: 'owner' }),
      409,
      'TAG_KEY_ACTIVE',
    );
    await settled();
    const byTeam = await costs(admin, { groupBy: 'tag:team:owner' });
    expect(byTeam.body.source).toBe('rollup');
    expect(totals(byTeam)).toEqual({ alpha: 102.25, beta: 40, '': 42.5 });
    const filtered = await costs(admin, { filter: "tag('team', 'owner' == 'alpha')" });
    expect(filtered.body).toMatchObject({ source: 'rollup', total: 102.25 });
    // a key in another group is not activated: the line items answer
    expect((await costs(admin, { groupBy: 'tag:ops:owner' })).body.source).toBe('line-items');
  });

  it('merges tag variants with a dimension, previews it, and answers its grouping from rollups', async () => {
    const rules = [
      { expr: PRODUCTION, value: 'production' },
      { expr: "tag('default', 'env' == 'dev')", value: 'development' },
    ];
    const preview = await api()
      .post(`${API}/allocation/dimensions/preview`)
      .set('corelite-token', admin)
      .send({ rules, from: '202402', to: '202403' })
      .expect(200);
    expect(preview.body.rules).toEqual([
      { rule: 0, value: 'production', cost: 165, lineItems: 3 },
      { rule: 1, value: 'development', cost: 10, lineItems: 1 },
    ]);
    expect(preview.body.unallocated).toEqual({ value: 'unallocated', unallocated: true, cost: 9.75, lineItems: 2 });
    expect(preview.body.total).toEqual({ cost: 184.75, lineItems: 6 });

    expectProblem(
      await api()
        .post(`${API}/allocation/dimensions`)
        .set('corelite-token', admin)
        .send({ name: 'environment', rules: [{ expr: "region = 'x'", value: 'x' }] }),
      400,
      'INVALID_EXPRESSION',
    );
    const created = await api()
      .post(`${API}/allocation/dimensions`)
      .set('corelite-token', admin)
      .send({ name: 'environment', rules })
      .expect(201);
    expect(created.body).toMatchObject({ name: 'environment', version: 1, defaultValue: 'unallocated', updatedBy: 'admin' });
    await settled();
    const byEnvironment = await costs(admin, { groupBy: 'dimension:environment' });
    expect(byEnvironment.body.source).toBe('rollup');
    expect(totals(byEnvironment)).toEqual({ production: 165, development: 10, unallocated: 9.75 });
    const sum = Object.values(totals(byEnvironment) as Record<string, number>).reduce((total, value) => total + value, 0);
    expect(sum).toBe((await costs(admin, {})).body.total);
    const production = await costs(admin, { filter: "dimension('environment') == 'production'", groupBy: 'serviceName' });
    expect(production.body.source).toBe('rollup');
    expect(totals(production)).toEqual({ EC2: 140, S3: 25 });
    expectProblem(
      await api().get(`${API}/costs`).query({ groupBy: 'dimension:nope' }).set('corelite-token', admin),
      400,
      'UNKNOWN_DIMENSION',
    );
  });

  it('applies a rule change to all data: the explorer shows the old grouping or the new, never a mix', async () => {
    const current = await api().get(`${API}/allocation/dimensions/environment`).set('corelite-token', admin).expect(200);
    const rules = [
      { expr: PRODUCTION, value: 'prd' },
      { expr: "providerName == 'azure'", value: 'shared' },
    ];
    const answers: Record<string, number>[] = [];
    let saving = true;
    const reader = (async () => {
      while (saving) answers.push(totals(await costs(admin, { groupBy: 'dimension:environment' })));
    })();
    await api()
      .put(`${API}/allocation/dimensions/environment`)
      .set('corelite-token', admin)
      .send({ rules, version: current.body.version })
      .expect(200);
    await settled();
    answers.push(totals(await costs(admin, { groupBy: 'dimension:environment' })));
    saving = false;
    await reader;
    const before = { production: 165, development: 10, unallocated: 9.75 };
    const after = { prd: 165, shared: 7.5, unallocated: 12.25 };
    for (const answer of answers) expect([before, after]).toContainEqual(answer);
    expect(answers[answers.length - 1]).toEqual(after);

    expectProblem(
      await api()
        .put(`${API}/allocation/dimensions/environment`)
        .set('corelite-token', admin)
        .send({ rules, version: current.body.version }),
      409,
      'DIMENSION_VERSION_CONFLICT',
    );
    const versions = await api().get(`${API}/allocation/dimensions/environment/versions`).set('corelite-token', admin).expect(200);
    expect(
      versions.body.items.map((version: { version: number; change: string; changedBy: string }) => [
        version.version,
        version.change,
        version.changedBy,
      ]),
    ).toEqual([
      [2, 'updated', 'admin'],
      [1, 'created', 'admin'],
    ]);
  });

  it('restricts a member by a visibility group over a dimension exactly as by the rules behind it', async () => {
    await api()
      .post(`${API}/dynamicResourceGroups`)
      .set('corelite-token', admin)
      .send({ _id: 'prd-only', type: 'visibility', expr: "dimension('environment') == 'prd'", context: { teams: ['PROD-TEAM'] } })
      .expect(200);
    await eventually(async () => {
      const seen = await costs(carol, { groupBy: 'serviceName' });
      expect(totals(seen)).toEqual(totals(await costs(admin, { groupBy: 'serviceName', filter: PRODUCTION })));
    });
    const list = await api().get(`${API}/costLineItems`).query({ limit: '50' }).set('corelite-token', carol).expect(200);
    expect(list.body.items.map((row: { cost: number }) => row.cost).sort((a: number, b: number) => a - b)).toEqual([25, 40, 100]);
  });

  it('splits a shared cost by proportion, shows it as allocated cost, and its showback matches the explorer', async () => {
    const team = [
      { expr: "tag('team', 'owner' == 'alpha')", value: 'alpha' },
      { expr: "tag('team', 'owner' == 'beta')", value: 'beta' },
      { expr: "providerName == 'azure'", value: 'shared' },
    ];
    await api().post(`${API}/allocation/dimensions`).set('corelite-token', admin).send({ name: 'team', rules: team }).expect(201);
    await settled();
    const put = (rules: object[]) => api().put(`${API}/allocation/splitRules`).set('corelite-token', admin).send({ rules });
    const shared = { name: 'Shared platform', source: "dimension('team') == 'shared'", target: 'dimension:team', method: 'proportional' };
    expectProblem(await put([{ ...shared, targets: [{ value: 'alpha' }, { value: 'shared' }] }]), 400, 'SPLIT_RULE_CYCLE');
    expectProblem(
      await put([{ ...shared, source: "tag('default', 'env' == 'prod')", targets: [{ value: 'alpha' }] }]),
      400,
      'INVALID_SPLIT_RULE',
    );
    expectProblem(
      await put([
        {
          ...shared,
          method: 'fixed',
          targets: [
            { value: 'alpha', percent: 60 },
            { value: 'beta', percent: 30 },
          ],
        },
      ]),
      400,
      'INVALID_SPLIT_RULE',
    );
    const saved = await put([{ ...shared, targets: [{ value: 'alpha' }, { value: 'beta' }] }]).expect(200);
    expect(saved.body.rules).toHaveLength(1);
    expectProblem(await api().delete(`${API}/allocation/dimensions/team`).set('corelite-token', admin), 409, 'ALLOCATION_IN_USE');

    // 7.5 of shared cost split 100:40 between alpha and beta, in units of 10^-9, adding up exactly
    const statement = await api()
      .get(`${API}/allocation/showback`)
      .query({ dimension: 'dimension:team', period: '202403' })
      .set('corelite-token', admin)
      .expect(200);
    expect(statement.body.splits).toEqual([
      {
        name: 'Shared platform',
        source: 7.5,
        shares: [
          { value: 'alpha', amount: 5.357142857 },
          { value: 'beta', amount: 2.142857143 },
        ],
      },
    ]);
    const lines = Object.fromEntries(
      statement.body.lines.map((entry: { value: string; direct: number; shared: number }) => [entry.value, [entry.direct, entry.shared]]),
    );
    expect(lines).toEqual({ alpha: [100, 5.357142857], beta: [40, 2.142857143], unallocated: [35, 0] });
    expect(statement.body.total).toBeCloseTo(182.5, 9);

    const allocated = await costs(admin, { from: '202403', to: '202403', groupBy: 'dimension:team', metric: 'allocatedCost' });
    expect(allocated.body).toMatchObject({ metric: 'allocatedCost', source: 'rollup' });
    expect(totals(allocated)).toEqual({ alpha: 105.357142857, beta: 42.142857143, unallocated: 35 });

    const csv = await api()
      .get(`${API}/allocation/showback`)
      .query({ dimension: 'dimension:team', period: '202403', format: 'csv' })
      .set('corelite-token', admin)
      .expect(200);
    const rows = csv.text
      .trim()
      .split('\n')
      .slice(1)
      .map((row) => row.split(','));
    expect(Object.fromEntries(rows.map((row) => [row[2], Number(row[5])]))).toEqual(totals(allocated));
    const focus = await api()
      .get(`${API}/allocation/showback`)
      .query({ dimension: 'dimension:team', period: '202403', format: 'focus' })
      .set('corelite-token', admin)
      .expect(200);
    expect(focus.text.split('\n')[0]).toContain('x_AllocationValue');
    expect(focus.text).toContain('shared,Shared platform');
  });

  it('answers budgets and report models scoped by a dimension from the rollups', async () => {
    await api()
      .post(`${API}/budgetController/budgets`)
      .set('corelite-token', admin)
      .send({
        name: 'Alpha',
        amount: 200,
        currency: 'USD',
        scope: { expr: "dimension('team') == 'alpha'" },
        startPeriod: '202403',
        endPeriod: '202403',
        thresholds: [80],
      })
      .expect(201);
    const units = await api().get(`${API}/budgetController/budgetaryUnits`).set('corelite-token', admin).expect(200);
    expect(units.body.find((unit: { name: string }) => unit.name === 'Alpha')).toMatchObject({
      period: '202403',
      actual: 100,
      percentUsed: 50,
    });

    await api()
      .post(`${API}/reportModels/by-team?templateId=cost-by-provider`)
      .set('corelite-token', admin)
      .send({ append: false, type: 'v1', vtags: [], expr: "period == ${period} && dimension('team') != 'unallocated'" })
      .expect(200);
    const run = await api()
      .get(`${API}/reportModels/by-team/execution`)
      .query({ templateParams: JSON.stringify({ period: '202403' }) })
      .set('corelite-token', admin)
      .expect(200);
    expect(run.body).toMatchObject({
      source: 'rollup',
      rows: [
        expect.objectContaining({ key: { providerName: 'aws' }, cost: 140 }),
        expect.objectContaining({ key: { providerName: 'azure' }, cost: 7.5 }),
      ],
    });
  });

  it('treats provider names that differ by case, and declared aliases, as one provider; line items keep their names', async () => {
    const may = (providerName: string, cost: number) =>
      item(cost, [], { providerName, period: '202405', chargePeriodStart: new Date('2024-05-03T10:00:00Z'), uploadRefId: 'providers' });
    await seedLineItems(platform, 'default', [may('aws', 1), may('AWS', 2), may('Amazon Web Services', 4)]);
    const byProvider = () => costs(admin, { from: '202405', to: '202405', groupBy: 'providerName' });
    expect(totals(await byProvider())).toEqual({ aws: 3, 'Amazon Web Services': 4 });

    const declared = await api()
      .put(`${API}/allocation/providers`)
      .set('corelite-token', admin)
      .send({ providers: [{ name: 'aws', aliases: ['Amazon Web Services'] }] })
      .expect(200);
    expect(declared.body.providers).toEqual([{ name: 'aws', aliases: ['Amazon Web Services'] }]);
    expectProblem(
      await api()
        .put(`${API}/allocation/providers`)
        .set('corelite-token', admin)
        .send({
          providers: [
            { name: 'aws', aliases: [] },
            { name: 'amazon', aliases: ['AWS'] },
          ],
        }),
      400,
      'INVALID_PROVIDER',
    );
    const merged = await byProvider();
    expect(merged.body.source).toBe('rollup');
    expect(totals(merged)).toEqual({ aws: 7 });
    expect((await costs(admin, { from: '202405', to: '202405', filter: "providerName == 'AWS'" })).body.total).toBe(7);
    const list = await api()
      .get(`${API}/costLineItems`)
      .query({ expr: "providerName == 'amazon web services' && period == '202405'", limit: '10' })
      .set('corelite-token', admin)
      .expect(200);
    expect(list.body.items.map((row: { providerName: string }) => row.providerName).sort()).toEqual(['AWS', 'Amazon Web Services', 'aws']);
  });
});
