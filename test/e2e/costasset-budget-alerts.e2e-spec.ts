import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import mongoose from 'mongoose';
import request from 'supertest';
import { BudgetThresholdCrossed, MessageBus } from '@lib/messaging';
import { createCostassetApp } from '../../apps/costasset/src/create-costasset-app';
import { forecastSeries } from '../../apps/costasset/src/forecasting/forecast';
import { withServiceNatsUser } from '../../tools/stack';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { collectThresholdEvents, natsProbe } from '../support/nats-probe';
import { mailsWith, startReceiver } from '../support/notifications';
import { verifySignature } from '../../apps/costasset/src/notifications/channels/signature';
import { eventually, Platform, startPlatform } from '../support/platform';

const BUDGETS = '/api/costasset/v1/budgetController/budgets';
const UNITS = '/api/costasset/v1/budgetController/budgetaryUnits';
const DAY = 86_400_000;

const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);
const periodOfDay = (day: string) => day.slice(0, 7).replace('-', '');

/**
 * Budget alerts with two costasset instances on one database and one NATS (the platform's, and a
 * second one in this process, both subscribed to `costasset.lineitems.changed`): a forecast
 * threshold fires before the actual one does, each crossing once, and budgets answer their
 * forecast with its interval.
 */
describe('costasset budget alerts (forecasts, two instances)', () => {
  let platform: Platform;
  let second: INestApplication;
  let probe: { bus: MessageBus; close(): Promise<void> };
  let events: BudgetThresholdCrossed[];
  let admin: string;

  // 40 days up to yesterday, rising by 1 a day: the current month's forecast is above its run rate
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const days = Array.from({ length: 40 }, (_, i) => isoDay(today - (40 - i) * DAY));
  const costOf = (i: number) => 20 + i;
  const current = periodOfDay(isoDay(today));
  const previous = periodOfDay(isoDay(Date.UTC(new Date(today).getUTCFullYear(), new Date(today).getUTCMonth() - 1, 1)));
  const actualSoFar = days.reduce((sum, day, i) => (periodOfDay(day) === current ? sum + costOf(i) : sum), 0);
  const { monthEnd, nextMonths } = forecastSeries(
    days.map((_, i) => costOf(i)),
    days[days.length - 1],
  );
  const expected = periodOfDay(days[days.length - 1]) === current ? monthEnd.forecast : nextMonths[0].forecast;
  // between the actual so far and the forecast: below 100% now, forecast to exceed it
  const amount = Math.round((actualSoFar + expected) / 2);

  const seed = (items: Omit<SeedItem, 'providerName' | 'billingAccountId' | 'category' | 'region'>[]) =>
    seedLineItems(
      platform,
      'default',
      items.map((item) => ({ providerName: 'aws', billingAccountId: 'prod', category: 'Compute', region: 'eu-west-1', ...item })),
    );
  const changed = (periods: string[]) =>
    probe.bus.publish('costasset.lineitems.changed', { tenantId: 'default', periods, reason: 'ingestion' });
  const ofBudget = (budgetId: string) => events.filter((event) => event.budgetId === budgetId);

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    ({ app: second } = await createCostassetApp(withServiceNatsUser(platform.env, 'costasset')));
    await second.init();
    probe = await natsProbe(platform);
    events = await collectThresholdEvents(probe.bus);
  });
  afterAll(async () => {
    await probe?.close();
    await second?.close();
    await platform?.close();
  });

  it('fires "forecast to exceed 100%" once before the actual reaches it, then "reached 100%" once, with two instances', async () => {
    const budget = (
      await request(platform.costasset.url)
        .post(BUDGETS)
        .set('corelite-token', admin)
        .send({
          name: 'AWS trend',
          amount,
          currency: 'USD',
          scope: { expr: 'providerName == "aws"' },
          startPeriod: current,
          endPeriod: current,
          thresholds: [100],
          forecastThresholds: [100],
        })
        .expect(201)
    ).body;
    expect(budget).toMatchObject({ thresholds: [100], forecastThresholds: [100] });

    await seed(days.map((day, i) => ({ period: periodOfDay(day), cost: costOf(i), chargePeriodStart: new Date(`${day}T06:00:00Z`) })));
    await changed([previous, current]);
    await eventually(async () => expect(ofBudget(budget.id)).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(ofBudget(budget.id)).toEqual([
      expect.objectContaining({
        kind: 'forecast',
        threshold: 100,
        period: current,
        amount,
        actual: actualSoFar,
        forecast: expect.any(Number),
      }),
    ]);
    expect(ofBudget(budget.id)[0].percentUsed).toBeLessThan(100);
    expect(ofBudget(budget.id)[0].forecast).toBeGreaterThan(amount);

    // the answer carries the forecast, its interval and the thresholds
    const [unit] = (await request(platform.costasset.url).get(UNITS).set('corelite-token', admin).expect(200)).body;
    expect(unit).toMatchObject({
      name: 'AWS trend',
      period: current,
      phase: 'current',
      actual: actualSoFar,
      thresholds: [100],
      thresholdsCrossed: [],
      forecastThresholds: [100],
      forecastThresholdsCrossed: [100],
    });
    expect(unit.forecast).toBeCloseTo(expected, 0);
    expect(unit.forecastLower).toBeLessThanOrEqual(unit.forecast);
    expect(unit.forecastUpper).toBeGreaterThanOrEqual(unit.forecast);
    expect(unit.forecastPercentUsed).toBeGreaterThan(100);

    // the actual gets there: the actual crossing fires once, the forecast one not again
    await seed([{ period: current, cost: amount, chargePeriodStart: new Date(today + 3_600_000) }]);
    await changed([current]);
    await eventually(async () => expect(ofBudget(budget.id)).toHaveLength(2));
    await changed([current]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(ofBudget(budget.id).map((event) => `${event.kind}:${event.threshold}`)).toEqual(['forecast:100', 'actual:100']);

    // one record per kind, each handed to the notifier
    const crossings = await platform.costasset.app
      .get<mongoose.Connection>(getConnectionToken())
      .collection('budget_threshold_crossings')
      .find({ tenantId: 'default', budgetId: budget.id })
      .toArray();
    expect(crossings.map((crossing) => crossing.kind).sort()).toEqual(['actual', 'forecast']);
    expect(crossings.every((crossing) => crossing.notifiedAt instanceof Date)).toBe(true);
  });

  it('tells the subscribed channels of an 80% crossing once: one email and one signed webhook, with two instances', async () => {
    const receiver = await startReceiver();
    try {
      const api = (method: 'post' | 'get', path: string, body?: object) =>
        request(platform.costasset.url)[method](path).set('corelite-token', admin).send(body);
      const name = `Alerted ${randomUUID().slice(0, 8)}`;
      const budget = (
        await api('post', BUDGETS, {
          name,
          amount: 1000,
          currency: 'USD',
          scope: { expr: 'providerName == "gcp"' },
          startPeriod: current,
          endPeriod: current,
          thresholds: [80],
        }).expect(201)
      ).body;
      const email = (
        await api('post', '/api/costasset/v1/notificationChannels', {
          name: 'FinOps mail',
          type: 'email',
          recipients: ['finops@example.com'],
        }).expect(201)
      ).body;
      const hook = (
        await api('post', '/api/costasset/v1/notificationChannels', {
          name: 'FinOps hook',
          type: 'webhook',
          url: `${receiver.url}/budgets`,
        }).expect(201)
      ).body;
      await api('post', '/api/costasset/v1/notificationSubscriptions', {
        name: 'This budget',
        channelIds: [email.id, hook.id],
        topic: 'budget',
        budgetId: budget.id,
      }).expect(201);

      await seedLineItems(platform, 'default', [
        {
          providerName: 'gcp',
          billingAccountId: 'analytics',
          category: 'Compute',
          region: 'europe-west1',
          period: current,
          cost: 850,
          chargePeriodStart: new Date(today - DAY),
        },
      ]);
      // both instances receive the change, twice
      await changed([current]);
      await changed([current]);

      await eventually(async () => {
        expect(receiver.received.filter((entry) => entry.path === '/budgets')).toHaveLength(1);
        expect(await mailsWith(name)).toHaveLength(1);
      }, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const hooks = receiver.received.filter((entry) => entry.path === '/budgets');
      expect(hooks).toHaveLength(1);
      const now = Math.floor(Date.now() / 1000);
      expect(verifySignature(hook.signingSecret, hooks[0].body, hooks[0].headers['corelite-signature'] as string, now)).toBe(true);
      const body = JSON.parse(hooks[0].body);
      expect(body.topic).toEqual({ kind: 'budget', budgetId: budget.id });
      expect(body.title).toContain(name);
      expect(body.link).toMatch(/\/explorer\?/);
      expect(body.data).toMatchObject({ budgetId: budget.id, period: current, threshold: 80, kind: 'actual', actual: 850, amount: 1000 });

      const mails = await mailsWith(name);
      expect(mails).toHaveLength(1);
      expect(mails[0].to).toMatchObject({ text: 'finops@example.com' });
      expect(mails[0].text).toContain('80');
      expect(mails[0].html).toContain(name);
      expect(mails[0].html).toContain('/explorer?');
    } finally {
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });

  it('answers the actual as the forecast of past periods', async () => {
    const budget = (
      await request(platform.costasset.url)
        .post(BUDGETS)
        .set('corelite-token', admin)
        .send({
          name: 'Past',
          amount: 100,
          currency: 'USD',
          scope: { expr: 'providerName == "aws"' },
          startPeriod: previous,
          endPeriod: previous,
          thresholds: [],
        })
        .expect(201)
    ).body;
    const units = (await request(platform.costasset.url).get(UNITS).set('corelite-token', admin).expect(200)).body;
    const past = units.find((unit: { budgetId: string }) => unit.budgetId === budget.id);
    expect(past).toMatchObject({ phase: 'past', forecastThresholds: [], forecastThresholdsCrossed: [] });
    expect(past.forecast).toBe(past.actual);
    expect(past.forecastLower).toBe(past.actual);
    expect(past.forecastUpper).toBe(past.actual);
  });
});

/** Crossings recorded before kinds: given `actual` at start-up, and the unique index without kind dropped. */
describe('budget threshold crossings of before kinds', () => {
  it('migrates them at start-up: kind actual, the old unique index gone, the new one in place', async () => {
    const url = new URL(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:37017/corelite');
    url.pathname = `/e2e_crossings_${randomUUID().slice(0, 8)}`;
    const connection = await mongoose.createConnection(url.toString()).asPromise();
    const collection = connection.collection('budget_threshold_crossings');
    try {
      await collection.createIndex({ tenantId: 1, budgetId: 1, period: 1, threshold: 1 }, { unique: true });
      await collection.insertMany([
        { tenantId: 'default', budgetId: 'b1', period: '202410', threshold: 50, percentUsed: 60 },
        { tenantId: 'other', budgetId: 'b2', period: '202410', threshold: 80, percentUsed: 90 },
      ]);
      const { app } = await createCostassetApp({
        ...process.env,
        MONGODB_URI: url.toString(),
        NATS_NAMESPACE: `e2e_crossings_${randomUUID().slice(0, 8)}`,
        LOG_LEVEL: 'silent',
      });
      try {
        await app.init();
      } finally {
        await app.close();
      }
      const records = await collection.find({}, { sort: { budgetId: 1 } }).toArray();
      expect(records.map((record) => [record.budgetId, record.kind, record.notifiedAt])).toEqual([
        ['b1', 'actual', undefined],
        ['b2', 'actual', undefined],
      ]);
      const keys = (await collection.listIndexes().toArray()).filter((index) => index.unique).map((index) => Object.keys(index.key));
      expect(keys).toEqual([['tenantId', 'budgetId', 'period', 'threshold', 'kind']]);
      // a forecast crossing of the same threshold is a record of its own
      await collection.insertOne({
        tenantId: 'default',
        budgetId: 'b1',
        period: '202410',
        threshold: 50,
        kind: 'forecast',
        percentUsed: 40,
      });
      await expect(
        collection.insertOne({ tenantId: 'default', budgetId: 'b1', period: '202410', threshold: 50, kind: 'actual', percentUsed: 70 }),
      ).rejects.toMatchObject({ code: 11000 });
    } finally {
      await connection.dropDatabase();
      await connection.close();
    }
  });
});
