import { MongoClient } from 'mongodb';
import request from 'supertest';
import { seedLineItems } from '../support/line-item-seed';
import { scrape, total } from '../support/metrics';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const ROWS = 60_000;
const SLOW_PAGE = '/api/costasset/v1/costLineItems?limit=1000&chargeCategory=none-of-these';

/**
 * Under load, every request gets an answer in time: a query past its time limit is stopped by the
 * database and answered 503 with Retry-After; beyond its bounds of work in flight (every request:
 * 3, heavy routes: 2) an instance refuses at once, and cheap routes stay served while heavy ones
 * are refused; readiness says when it is saturated; a client that goes away stops its query.
 * The slow request is a page whose filter matches none of the tenant's rows: the index on
 * `tenantId + _id` walks all of them (no collection scan) before answering an empty page. The
 * report over its time limit reads a tag, so the planner answers it from the 60,000 line items
 * (a report the rollups answer reads a few dozen rows and may finish within the 1 ms limit).
 */
describe('under load: time limits, admission control, readiness', () => {
  let platform: Platform;
  let admin: string;
  let costasset: string;
  let client: MongoClient;

  const slowPage = (signal?: AbortSignal) => fetch(`${costasset}${SLOW_PAGE}`, { headers: { 'corelite-token': admin }, signal });
  const ready = () =>
    fetch(`${costasset}/health/ready`).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as { checks: Record<string, string> },
    }));

  beforeAll(async () => {
    platform = await startPlatform({ HTTP_MAX_IN_FLIGHT: '3', HTTP_MAX_HEAVY_IN_FLIGHT: '2', MONGODB_MAX_TIME_AGGREGATE_MS: '1' });
    admin = await platform.token({ sub: 'admin' });
    costasset = platform.costasset.directUrl;
    client = await MongoClient.connect(platform.env.MONGODB_URI as string);
    for (let offset = 0; offset < ROWS; offset += 10_000) {
      await seedLineItems(
        platform,
        'default',
        Array.from({ length: 10_000 }, (_, i) => ({
          providerName: ['aws', 'azure', 'gcp'][(offset + i) % 3],
          billingAccountId: `acct-${(offset + i) % 20}`,
          category: 'Compute',
          region: 'eu-west-1',
          period: '202410',
          cost: 1,
        })),
      );
    }
    await request(platform.costasset.url)
      .post('/api/costasset/v1/reportModels/load-model')
      .query({ templateId: 'cost-by-provider' })
      .set('corelite-token', admin)
      .send({ append: false, type: 'v1', vtags: [], expr: "period == ${period} && (tag('z', 'z' == 'z') || tag('z', 'z' != 'z'))" })
      .expect(200);
  }, 120_000);
  afterAll(async () => {
    await client.close();
    await platform.close();
  });

  it('answers a query over its time limit 503 DATABASE_TIMEOUT with Retry-After, at once', async () => {
    const before = await scrape(costasset);
    const started = performance.now();
    const res = await request(platform.costasset.url)
      .get('/api/costasset/v1/reportModels/load-model/execution')
      .query({ templateParams: '{"period":"202410"}' })
      .set('corelite-token', admin);
    const elapsedMs = performance.now() - started;
    expectProblem(res, 503, 'DATABASE_TIMEOUT');
    expect(res.headers['retry-after']).toBe('2');
    expect(elapsedMs).toBeLessThan(5_000);
    const after = await scrape(costasset);
    expect(
      total(after, 'corelite_db_operation_timeouts_total', { operation: 'aggregate' }) -
        total(before, 'corelite_db_operation_timeouts_total', { operation: 'aggregate' }),
    ).toBe(1);
    expect((await ready()).status).toBe(200);
  });

  it('refuses heavy requests beyond their bound at once with 503 SERVER_BUSY and Retry-After, before they reach the database', async () => {
    const before = await scrape(costasset);
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const started = performance.now();
        const res = await slowPage();
        return {
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          type: res.headers.get('content-type'),
          body: (await res.json()) as { code?: string; items?: unknown[] },
          ms: performance.now() - started,
        };
      }),
    );
    const refused = answers.filter((answer) => answer.status === 503);
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length + refused.length).toBe(answers.length);
    expect(served.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const answer of refused) {
      expect({ code: answer.body.code, retryAfter: answer.retryAfter, type: answer.type }).toEqual({
        code: 'SERVER_BUSY',
        retryAfter: '1',
        type: 'application/problem+json',
      });
    }
    for (const answer of served) expect(answer.body.items).toEqual([]);
    // a refusal does not wait for the work in flight
    expect(Math.max(...refused.map((answer) => answer.ms))).toBeLessThan(Math.max(...served.map((answer) => answer.ms)));
    const after = await scrape(costasset);
    const refusals = (families: typeof after, bound: string) => total(families, 'corelite_http_admission_refusals_total', { bound });
    expect(refusals(after, 'heavy') - refusals(before, 'heavy')).toBe(refused.length);
    expect(refusals(after, 'all') - refusals(before, 'all')).toBe(0);
    // only admitted requests reached the database: two finds each (the tenant's import view, then the page)
    const finds = (families: typeof after) => total(families, 'corelite_db_operation_duration_seconds', { operation: 'find' });
    expect(finds(after) - finds(before)).toBe(2 * served.length);
  });

  it(
    'reports itself not ready while saturated, ready again once the ' + 'work in flight ends; cheap routes, health and metrics stay served',
    async () => {
      // two clients keep the instance at its bound of 2 heavy requests (one slow page after the other), however fast the machine
      let busy = true;
      const keepBusy = async () => {
        while (busy) await slowPage();
      };
      const work = [keepBusy(), keepBusy()];
      let saturated: { status: number; body: { checks: Record<string, string> } } | undefined;
      await eventually(
        async () => {
          const answer = await ready();
          expect(answer.body.checks.admission).toBe('down');
          saturated = answer;
        },
        10_000,
        5,
      );
      expect(saturated).toMatchObject({
        status: 503,
        body: { code: 'NOT_READY', checks: { admission: 'down', mongodb: 'up', nats: 'up' } },
      });
      expect((await fetch(`${costasset}/health/live`)).status).toBe(200);
      expect((await fetch(`${costasset}/metrics`)).status).toBe(200);
      await eventually(async () => expect((await slowPage()).status).toBe(503), 10_000, 5);
      // a cheap route takes the third slot of every request's bound while heavy ones are refused
      const cheap = await request(platform.costasset.url).get('/api/costasset/v1/currency/defaultCurrency').set('corelite-token', admin);
      expect(cheap.status).toBe(200);
      busy = false;
      await Promise.all(work);
      const started = Date.now();
      await eventually(async () => expect((await ready()).status).toBe(200), 5_000, 20);
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );

  it('stops the database work of a request whose client went away', async () => {
    const db = client.db();
    const running = async () =>
      (
        (await client.db('admin').command({ currentOp: 1 })).inprog as { ns?: string; command?: { filter?: Record<string, unknown> } }[]
      ).filter((op) => op.ns === `${db.databaseName}.cost_line_items` && op.command?.filter?.chargeCategory === 'none-of-these');
    // how long the query runs when nobody leaves, measured now (the machine may be busy)
    let started = performance.now();
    expect((await slowPage()).status).toBe(200);
    const wholeMs = performance.now() - started;

    const before = await scrape(costasset);
    const controller = new AbortController();
    const abandoned = slowPage(controller.signal).catch((error: Error) => error);
    await eventually(async () => expect(await running()).toHaveLength(1), 10_000, 2);
    controller.abort();
    started = performance.now();
    expect(((await abandoned) as Error).name).toBe('AbortError');
    await eventually(async () => expect(await running()).toHaveLength(0), 5_000, 5);
    expect(performance.now() - started).toBeLessThan(wholeMs);
    await eventually(async () => {
      const after = await scrape(costasset);
      const delta = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);
      expect(delta('corelite_http_requests_abandoned_total')).toBe(1);
      expect(delta('corelite_http_request_duration_seconds', { route: '/api/costasset/v1/costLineItems', status: '499' })).toBe(1);
      expect(delta('corelite_db_operation_duration_seconds', { operation: 'find', outcome: 'abandoned' })).toBe(1);
    });
  });
});
