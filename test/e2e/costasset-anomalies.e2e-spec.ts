import request from 'supertest';
import { csvLine } from '../../tools/gpd/gpd-content';
import { focusRow, headerOf, PROVIDERS } from '../../tools/focus/focus-rows';
import { importFocus } from '../support/focus';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { startReceiver } from '../support/notifications';

const ANOMALIES = '/api/costasset/v1/anomalies';
const DAY_MS = 86_400_000;
const ACCOUNT = PROVIDERS.aws.billingAccountId;
const SERVICES = ['Amazon Elastic Compute Cloud', 'Amazon Simple Storage Service', 'Amazon Relational Database Service'];
const SPIKED = SERVICES[0];

const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
/** 60 days ending yesterday (UTC); the spike falls 5 days before the end. */
const DAYS = Array.from({ length: 60 }, (_, i) => today - (60 - i) * DAY_MS);
const SPIKE_DAY = isoDay(DAYS[54]);

function monthBounds(time: number): [string, string] {
  const date = new Date(time);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return [new Date(start).toISOString(), new Date(end).toISOString()];
}

/** A FOCUS 1.2 CSV: one usage row per day and service of one AWS account, steady with a weekly pattern, and the spike. */
function focusCsv(): { name: string; body: Buffer } {
  const header = headerOf('1.2');
  const lines = [csvLine(header)];
  let index = 0;
  for (const day of DAYS) {
    for (const [s, service] of SERVICES.entries()) {
      const weekday = new Date(day).getUTCDay();
      const wobble = ((index * 7919) % 9) - 4;
      let cost = (s + 1) * 100 + (weekday === 0 || weekday === 6 ? -30 : 0) + wobble;
      if (service === SPIKED && isoDay(day) === SPIKE_DAY) cost += 800;
      const [billingStart, billingEnd] = monthBounds(day);
      const template = focusRow(index, { version: '1.2', providers: ['aws'], periods: ['202401'], rows: 1000 });
      const amount = cost.toFixed(2);
      const row = {
        ...template,
        ChargeCategory: 'Usage',
        ChargeClass: null,
        ChargeFrequency: 'Usage-Based',
        BilledCost: amount,
        EffectiveCost: amount,
        ListCost: amount,
        ContractedCost: amount,
        PricingCurrencyEffectiveCost: amount,
        BillingPeriodStart: billingStart,
        BillingPeriodEnd: billingEnd,
        ChargePeriodStart: new Date(day).toISOString(),
        ChargePeriodEnd: new Date(day + DAY_MS).toISOString(),
        ServiceName: service,
        CommitmentDiscountCategory: null,
        CommitmentDiscountId: null,
        CommitmentDiscountName: null,
        CommitmentDiscountQuantity: null,
        CommitmentDiscountStatus: null,
        CommitmentDiscountType: null,
        CommitmentDiscountUnit: null,
      };
      lines.push(csvLine(header.map((column) => (row as Record<string, string | null>)[column] ?? '')));
      index++;
    }
  }
  return { name: 'anomalies.csv', body: Buffer.from(lines.join('')) };
}

interface AnomalyBody {
  id: string;
  dimensions: Record<string, string | null>;
  day: string;
  expected: number;
  actual: number;
  impact: number;
  status: string;
  detectionRunId: string;
}

/** Detection after an import (a job), the list within visibility, triage, and a dismissed anomaly never raised again. */
describe('costasset anomaly detection', () => {
  let platform: Platform;
  let admin: string;
  let inside: string;
  let outside: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const announcements = () => receiver.received.filter((entry) => entry.path === '/anomalies');

  const list = (token: string, query: Record<string, string> = {}) =>
    request(platform.costasset.url).get(ANOMALIES).query(query).set('corelite-token', token);
  const spikes = async (token: string): Promise<AnomalyBody[]> =>
    ((await list(token).expect(200)).body.items as AnomalyBody[]).filter((anomaly) => anomaly.day === SPIKE_DAY);

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    const group = (body: object) =>
      request(platform.costasset.url).post('/api/costasset/v1/dynamicResourceGroups').set('corelite-token', admin).send(body).expect(200);
    ({ 'an-inside': inside } = await teamMembers(platform, { code: 'AN-IN' }, ['an-inside']));
    ({ 'an-outside': outside } = await teamMembers(platform, { code: 'AN-OUT' }, ['an-outside']));
    await group({ _id: 'an-in', type: 'visibility', expr: `billingAccountId == "${ACCOUNT}"`, context: { teams: ['AN-IN'] } });
    await group({ _id: 'an-out', type: 'visibility', expr: 'billingAccountId == "999999999999"', context: { teams: ['AN-OUT'] } });
    // a channel subscribed to anomalies: each detection run's new anomalies reach it as one message
    receiver = await startReceiver();
    const admin_ = (path: string, body: object) =>
      request(platform.costasset.url).post(`/api/costasset/v1/${path}`).set('corelite-token', admin).send(body).expect(201);
    const hook = await admin_('notificationChannels', { name: 'Anomalies hook', type: 'webhook', url: `${receiver.url}/anomalies` });
    await admin_('notificationSubscriptions', { name: 'Anomalies', channelIds: [hook.body.id], topic: 'anomalies' });
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('has defaults, and only a System Admin changes them', async () => {
    const settings = await request(platform.costasset.url).get(`${ANOMALIES}/settings`).set('corelite-token', inside).expect(200);
    expect(settings.body).toEqual({ minImpact: 10, minImpactRatio: 0.1, minScore: 3.5, windowDays: 56, minHistoryDays: 14 });
    await request(platform.costasset.url).put(`${ANOMALIES}/settings`).set('corelite-token', inside).send({ minImpact: 5 }).expect(403);
    const bad = await request(platform.costasset.url).put(`${ANOMALIES}/settings`).set('corelite-token', admin).send({ minScore: 0, x: 1 });
    expectProblem(bad, 400, 'VALIDATION_FAILED');
    const set = await request(platform.costasset.url).put(`${ANOMALIES}/settings`).set('corelite-token', admin).send({ minImpact: 20 });
    expect(set.body).toMatchObject({ minImpact: 20, minScore: 3.5 });
    await request(platform.costasset.url).put(`${ANOMALIES}/settings`).set('corelite-token', admin).send({}).expect(200);
  });

  it('finds the spike on its day and series after an import; a reader outside the series does not see it', async () => {
    const imported = await importFocus(platform, admin, [focusCsv()]);
    expect(imported.job.status).toBe('succeeded');
    let found: AnomalyBody[] = [];
    await eventually(
      async () => {
        found = await spikes(admin);
        expect(found).toHaveLength(1);
      },
      60_000,
      500,
    );
    const [anomaly] = found;
    expect(anomaly).toMatchObject({ day: SPIKE_DAY, status: 'open' });
    expect(anomaly.dimensions).toMatchObject({ billingAccountId: ACCOUNT, serviceName: SPIKED });
    expect(anomaly.impact).toBeGreaterThan(600);
    expect(anomaly.actual - anomaly.expected).toBeCloseTo(anomaly.impact, 6);
    // nothing on the steady series
    const all = (await list(admin).expect(200)).body.items as AnomalyBody[];
    expect(all.filter((one) => one.dimensions.serviceName !== SPIKED)).toEqual([]);

    expect((await spikes(inside)).map((one) => one.id)).toEqual([anomaly.id]);
    expect(await spikes(outside)).toEqual([]);
    expect((await list(admin, { from: SPIKE_DAY, to: SPIKE_DAY, status: 'open' }).expect(200)).body.items).toHaveLength(1);
    expect((await list(admin, { status: 'dismissed' }).expect(200)).body.items).toHaveLength(0);
    expectProblem(await list(admin, { status: 'maybe' }), 400, 'VALIDATION_FAILED', ['status']);

    // the run's message reached the subscribed channel: one message, naming the spike
    await eventually(async () => expect(announcements()).toHaveLength(1), 20_000);
    const message = JSON.parse(announcements()[0].body);
    expect(message.topic).toEqual({ kind: 'anomalies' });
    expect(message.link).toMatch(/\/anomalies$/);
    expect(JSON.stringify(message.data)).toContain(SPIKE_DAY);
    expect(JSON.stringify(message.data)).toContain(SPIKED);
  }, 120_000);

  it('a dismissed anomaly is not raised again by a later run', async () => {
    const [anomaly] = await spikes(admin);
    const patch = (token: string, body: object) =>
      request(platform.costasset.url).patch(`${ANOMALIES}/${anomaly.id}`).set('corelite-token', token).send(body);
    await patch(inside, { status: 'dismissed' }).expect(403);
    expectProblem(await patch(admin, { status: 'closed' }), 400, 'VALIDATION_FAILED', ['status']);
    expect((await patch(admin, { status: 'dismissed' }).expect(200)).body).toMatchObject({ id: anomaly.id, status: 'dismissed' });

    const reimportedAt = new Date().toISOString();
    const again = await importFocus(platform, admin, [focusCsv()]);
    expect(again.job.status).toBe('succeeded');
    // the detection job the re-import queued has ended; it left the dismissed record as it was
    type JobBody = { type: string; status: string; createdAt: string; result?: Record<string, number> };
    let runs: JobBody[] = [];
    await eventually(
      async () => {
        const jobs = await request(platform.costasset.url)
          .get('/api/costasset/v1/jobs')
          .query({ type: 'anomalies.detect', limit: '100' })
          .set('corelite-token', admin)
          .expect(200);
        runs = (jobs.body.items as JobBody[]).filter((job) => job.createdAt >= reimportedAt);
        expect(runs.map((job) => job.status)).toEqual(['succeeded']);
      },
      60_000,
      500,
    ).catch((error: unknown) => {
      throw new Error(`detection runs after the re-import: ${JSON.stringify(runs)}; ${String(error)}`);
    });
    expect(runs[0].result).toMatchObject({ created: 0, announced: 0 });
    expect(announcements()).toHaveLength(1);
    const [after] = await spikes(admin);
    expect(after).toMatchObject({ id: anomaly.id, status: 'dismissed', detectionRunId: anomaly.detectionRunId });
    expect((await list(admin, { status: 'open' }).expect(200)).body.items).toHaveLength(0);
  }, 120_000);

  it("watches each virtual dimension's series too: the spike is found in its value's series", async () => {
    const api = (method: 'get' | 'post', path: string) =>
      request(platform.costasset.url)[method](`/api/costasset/v1/${path}`).set('corelite-token', admin);
    const rules = [{ expr: `serviceName == '${SPIKED}'`, value: 'compute' }];
    await api('post', 'allocation/dimensions').send({ name: 'anomaly-team', rules, defaultValue: 'rest' }).expect(201);
    await eventually(async () => expect((await api('get', 'allocation').expect(200)).body.rollups.current).toBe(true), 30_000, 200);
    const again = await importFocus(platform, admin, [focusCsv()]);
    expect(again.job.status).toBe('succeeded');
    let byTeam: AnomalyBody[] = [];
    await eventually(
      async () => {
        byTeam = (await spikes(admin)).filter((one) => 'dimension:anomaly-team' in one.dimensions);
        expect(byTeam.map((one) => one.dimensions)).toEqual([{ 'dimension:anomaly-team': 'compute' }]);
      },
      60_000,
      500,
    );
    expect(byTeam[0].status).toBe('open');
    // a visibility group over billing accounts does not decide on a dimension's series
    expect((await spikes(inside)).filter((one) => 'dimension:anomaly-team' in one.dimensions)).toEqual([]);
  }, 120_000);
});
