import request from 'supertest';
import { BudgetThresholdCrossed, MessageBus } from '@lib/messaging';
import { seedLineItems } from '../support/line-item-seed';
import { teamMembers } from '../support/members';
import { collectThresholdEvents, natsProbe } from '../support/nats-probe';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const BUDGETS = '/api/costasset/v1/budgetController/budgets';
const UNITS = '/api/costasset/v1/budgetController/budgetaryUnits';

/** Budgets: CRUD, budgetary units, and threshold events once per budget, period and threshold. */
describe('costasset budgets', () => {
  let platform: Platform;
  let probe: { bus: MessageBus; close(): Promise<void> };
  let events: BudgetThresholdCrossed[];
  let admin: string;
  /** A member: in a team that neither a visibility group nor a budgetary group names. */
  let bob: string;

  const post = (body: object, token = admin) => request(platform.costasset.url).post(BUDGETS).set('corelite-token', token).send(body);
  const units = (token = admin) => request(platform.costasset.url).get(UNITS).set('corelite-token', token);
  const budget = (overrides: object = {}) => ({
    name: 'AWS prod',
    amount: 200,
    currency: 'USD',
    scope: { expr: 'providerName == "aws"' },
    startPeriod: '202410',
    endPeriod: '202411',
    thresholds: [100, 50, 80],
    ...overrides,
  });
  const ingest = async (cost: number, period = '202410') => {
    await seedLineItems(platform, 'default', [
      { providerName: 'aws', billingAccountId: 'prod', category: 'Compute', region: 'eu-west-1', period, cost },
    ]);
    await probe.bus.publish('costasset.lineitems.changed', { tenantId: 'default', periods: [period], reason: 'ingestion' });
  };

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    ({ bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
    probe = await natsProbe(platform);
    events = await collectThresholdEvents(probe.bus);
  });
  afterAll(async () => {
    await probe.close();
    await platform.close();
  });

  it('answers 204 while there are no budgets', async () => {
    await units().expect(204);
  });

  it('creates, reads, replaces and deletes budgets, refusing invalid ones', async () => {
    const created = await post(budget()).expect(201);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      name: 'AWS prod',
      thresholds: [50, 80, 100],
      scope: { expr: 'providerName == "aws"' },
    });
    await request(platform.costasset.url).get(`${BUDGETS}/${created.body.id}`).set('corelite-token', admin).expect(200);
    expect((await post(budget({ name: 'aws PROD' }))).body.code).toBe('BUDGET_NAME_TAKEN');
    expect((await post(budget({ name: 'x', scope: {} }))).body.code).toBe('BUDGET_SCOPE_INVALID');
    expect((await post(budget({ name: 'x', scope: { expr: 'providerName = "aws"' } }))).body.code).toBe('INVALID_EXPRESSION');
    expect((await post(budget({ name: 'x', scope: { groupId: 'missing' } }))).status).toBe(404);
    expect((await post(budget({ name: 'x', startPeriod: '202412', endPeriod: '202401' }))).body.code).toBe('BUDGET_PERIODS_INVALID');
    expect((await post(budget({ name: 'x', currency: 'JPY' }))).body.code).toBe('CURRENCY_RATE_MISSING');
    expect((await post(budget({ name: 'x', amount: -1 }))).body.code).toBe('VALIDATION_FAILED');
    expect((await post(budget({ name: 'x', forecastThresholds: [0] }))).body.code).toBe('VALIDATION_FAILED');
    expect((await post(budget({ name: 'x', forecastThresholds: [100, 100] }))).body.code).toBe('VALIDATION_FAILED');
    expect(created.body.forecastThresholds).toEqual([]);
    // a member (in a team, without System Admin) changes no budget; neither does a user in no team
    expectProblem(await post(budget({ name: 'x' }), bob), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await post(budget({ name: 'x' }), await platform.token({ sub: 'loner' })), 403, 'SYSTEM_ADMIN_REQUIRED');

    const temp = await post(budget({ name: 'temp' })).expect(201);
    const replaced = await request(platform.costasset.url)
      .put(`${BUDGETS}/${temp.body.id}`)
      .set('corelite-token', admin)
      .send(budget({ name: 'temp', amount: 50, thresholds: [], forecastThresholds: [120, 90] }))
      .expect(200);
    expect(replaced.body).toMatchObject({ amount: 50, thresholds: [], forecastThresholds: [90, 120] });
    await request(platform.costasset.url).delete(`${BUDGETS}/${temp.body.id}`).set('corelite-token', admin).expect(204);
    await request(platform.costasset.url).get(`${BUDGETS}/${temp.body.id}`).set('corelite-token', admin).expect(404);
    await request(platform.costasset.url).get(`${BUDGETS}/not-an-id`).set('corelite-token', admin).expect(404);
  });

  it('publishes each threshold once as ingested costs cross 50, 80 and 100%', async () => {
    const ofPeriod = () =>
      events
        .filter((e) => e.period === '202410')
        .map((e) => e.threshold)
        .sort((a, b) => a - b);
    await ingest(90);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ofPeriod()).toEqual([]);
    await ingest(20);
    await eventually(async () => expect(ofPeriod()).toEqual([50]));
    await ingest(60);
    await eventually(async () => expect(ofPeriod()).toEqual([50, 80]));
    await ingest(40);
    await eventually(async () => expect(ofPeriod()).toEqual([50, 80, 100]));
    await ingest(1);
    await probe.bus.publish('costasset.lineitems.changed', { tenantId: 'default', periods: ['202410'], reason: 'ingestion' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ofPeriod()).toEqual([50, 80, 100]);
    expect(events.find((e) => e.threshold === 100)).toMatchObject({
      tenantId: 'default',
      budgetName: 'AWS prod',
      amount: 200,
      currency: 'USD',
      percentUsed: 105,
      kind: 'actual',
      forecast: 210,
    });
  });

  it('reports budgetary units per budget and period', async () => {
    await ingest(30, '202411');
    await seedLineItems(platform, 'default', [
      { providerName: 'azure', billingAccountId: 'prod', category: 'Compute', region: 'x', period: '202410', cost: 1000 },
    ]);
    const res = await units().expect(200);
    expect(res.body).toEqual([
      {
        budgetId: expect.any(String),
        name: 'AWS prod',
        period: '202410',
        amount: 200,
        actual: 211,
        remaining: -11,
        percentUsed: 105.5,
        thresholds: [50, 80, 100],
        thresholdsCrossed: [50, 80, 100],
        phase: 'past',
        forecast: 211,
        forecastLower: 211,
        forecastUpper: 211,
        forecastPercentUsed: 105.5,
        forecastThresholds: [],
        forecastThresholdsCrossed: [],
        currency: 'USD',
        source: 'rollup',
      },
      {
        budgetId: expect.any(String),
        name: 'AWS prod',
        period: '202411',
        amount: 200,
        actual: 30,
        remaining: 170,
        percentUsed: 15,
        thresholds: [50, 80, 100],
        thresholdsCrossed: [],
        phase: 'past',
        forecast: 30,
        forecastLower: 30,
        forecastUpper: 30,
        forecastPercentUsed: 15,
        forecastThresholds: [],
        forecastThresholdsCrossed: [],
        currency: 'USD',
        source: 'rollup',
      },
    ]);
  });

  it('scopes a budget with a budgetary resource group', async () => {
    await request(platform.costasset.url)
      .post('/api/costasset/v1/dynamicResourceGroups')
      .set('corelite-token', admin)
      .send({ _id: 'azure', type: 'budgetary', expr: 'providerName == "azure"' })
      .expect(200);
    await post(budget({ name: 'Azure', scope: { groupId: 'azure' }, amount: 500, endPeriod: '202410' })).expect(201);
    const res = await units().expect(200);
    expect(res.body.find((u: { name: string }) => u.name === 'Azure')).toMatchObject({ period: '202410', actual: 1000, percentUsed: 200 });
  });

  it(
    "follows the caller's visibility: a member sees the budgets of " + "its teams' budgetary groups, with actuals over what it may see",
    async () => {
      const groups = (body: object) =>
        request(platform.costasset.url).post('/api/costasset/v1/dynamicResourceGroups').set('corelite-token', admin).send(body).expect(200);
      const authz = (path: string, body: object) =>
        request(platform.authz.url)
          .post(path)
          .set('corelite-token', admin)
          .send(body)
          .expect((res) => expect(res.status).toBeLessThan(300));
      await authz('/authorization/v2/teams', { team_code: 'PROD-TEAM', org_code: 'org', roles: [] });
      await authz('/authorization/v2/users', { user_id: 'carol' });
      await authz('/authorization/v2/userteam', { user_id: 'carol', team_code: 'PROD-TEAM' });
      // carol's team sees the "prod" account only; its budget covers every aws account
      await groups({ _id: 'prod-visible', type: 'visibility', expr: 'billingAccountId == "prod"', context: { teams: ['PROD-TEAM'] } });
      await groups({ _id: 'all-aws', type: 'budgetary', expr: 'providerName == "aws"', context: { teams: ['PROD-TEAM'] } });
      await seedLineItems(platform, 'default', [
        { providerName: 'aws', billingAccountId: 'dev', category: 'Compute', region: 'x', period: '202412', cost: 70 },
      ]);
      await seedLineItems(platform, 'default', [
        { providerName: 'aws', billingAccountId: 'prod', category: 'Compute', region: 'x', period: '202412', cost: 30 },
      ]);
      const teamBudget = (
        await post(
          budget({ name: 'Team AWS', scope: { groupId: 'all-aws' }, amount: 100, startPeriod: '202412', endPeriod: '202412' }),
        ).expect(201)
      ).body;
      const hidden = (await post(budget({ name: 'Hidden', startPeriod: '202412', endPeriod: '202412' })).expect(201)).body;

      const carol = await platform.token({ sub: 'carol' });
      const list = await request(platform.costasset.url).get(BUDGETS).set('corelite-token', carol).expect(200);
      expect(list.body.map((b: { name: string }) => b.name)).toEqual(['Team AWS']);
      await request(platform.costasset.url).get(`${BUDGETS}/${teamBudget.id}`).set('corelite-token', carol).expect(200);
      await request(platform.costasset.url).get(`${BUDGETS}/${hidden.id}`).set('corelite-token', carol).expect(404);
      expect((await units(carol).expect(200)).body).toEqual([
        expect.objectContaining({ name: 'Team AWS', period: '202412', actual: 30, percentUsed: 30 }),
      ]);
      // the System Admin sees the whole scope
      expect((await units().expect(200)).body.find((u: { name: string }) => u.name === 'Team AWS')).toMatchObject({
        actual: 100,
        percentUsed: 100,
      });

      // a member whose teams no budgetary group names sees no budget and no actual
      await units(bob).expect(204);
      expect((await request(platform.costasset.url).get(BUDGETS).set('corelite-token', bob).expect(200)).body).toEqual([]);
      await request(platform.costasset.url).get(`${BUDGETS}/${teamBudget.id}`).set('corelite-token', bob).expect(404);
      // a user in no team reads nothing
      const loner = await platform.token({ sub: 'loner' });
      expectProblem(await units(loner), 403, 'TEAM_REQUIRED');
      expectProblem(await request(platform.costasset.url).get(BUDGETS).set('corelite-token', loner), 403, 'TEAM_REQUIRED');
      expectProblem(
        await request(platform.costasset.url).get(`${BUDGETS}/${teamBudget.id}`).set('corelite-token', loner),
        403,
        'TEAM_REQUIRED',
      );
    },
  );

  it('keeps tenants apart', async () => {
    const otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    await units(otherAdmin).expect(204);
    const mine = (await request(platform.costasset.url).get(BUDGETS).set('corelite-token', admin).expect(200)).body;
    await request(platform.costasset.url).get(`${BUDGETS}/${mine[0].id}`).set('corelite-token', otherAdmin).expect(404);
    await request(platform.costasset.url).delete(`${BUDGETS}/${mine[0].id}`).set('corelite-token', otherAdmin).expect(404);
  });
});
