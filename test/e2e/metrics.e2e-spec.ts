import request from 'supertest';
import { validGpd, validRows } from '../support/gpd-fixtures';
import { ingestGpd } from '../support/ingest';
import { MetricFamilies, scrape, total } from '../support/metrics';
import { Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

/** What an operator scrapes: both services' `/metrics`, parsed as Prometheus would, moving as work runs. */
describe('metrics of both services', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  const delta = (before: MetricFamilies, after: MetricFamilies, name: string, labels: Record<string, string> = {}) =>
    total(after, name, labels) - total(before, name, labels);

  it('serves every family in the text format on each service, never through the gateway', async () => {
    const common = [
      'corelite_http_request_duration_seconds',
      'corelite_http_requests_in_flight',
      'corelite_http_admission_refusals_total',
      'corelite_db_operation_duration_seconds',
      'corelite_db_operation_timeouts_total',
      'corelite_nats_request_duration_seconds',
      'corelite_nats_request_failures_total',
      'corelite_cache_requests_total',
      'corelite_process_cpu_seconds_total',
      'corelite_nodejs_eventloop_lag_p99_seconds',
    ];
    const jobs = [
      'corelite_jobs_started_total',
      'corelite_jobs_finished_total',
      'corelite_job_duration_seconds',
      'corelite_job_redeliveries_total',
      'corelite_job_queue_depth',
    ];
    for (const [service, url, expected] of [
      ['authz', platform.authz.directUrl, common],
      ['costasset', platform.costasset.directUrl, [...common, ...jobs, 'corelite_ingestion_rows_total']],
    ] as const) {
      const families = await scrape(url);
      expect(Object.keys(families)).toEqual(expect.arrayContaining([...expected]));
      for (const [name, family] of Object.entries(families)) expect({ name, help: family.help !== '' }).toEqual({ name, help: true });
      // every sample names its service
      expect(families.corelite_http_requests_in_flight.data[0].labels).toEqual({ service });
    }
    const viaGateway = await request(platform.gateway.url).get('/metrics');
    expectProblem(viaGateway, 404, 'NOT_FOUND');
  });

  it('counts requests by route and status, NATS requests, database operations and cache look-ups', async () => {
    const authz = (path: string, body: object) => request(platform.authz.url).post(path).set('corelite-token', admin).send(body);
    await authz('/authorization/v2/teams', { team_code: 'METRICS', org_code: 'metrics', roles: [] }).expect(201);
    await authz('/authorization/v2/users', { user_id: 'metrics-member' }).expect(201);
    await authz('/authorization/v2/userteam', { user_id: 'metrics-member', team_code: 'METRICS' }).expect(200);
    const before = { costasset: await scrape(platform.costasset.directUrl), authz: await scrape(platform.authz.directUrl) };
    // a caller costasset has not seen: its principal is asked of authz once, then cached
    const member = await platform.token({ sub: 'metrics-member' });
    for (let i = 0; i < 3; i++) {
      await request(platform.costasset.url).get('/api/costasset/v1/costLineItems').set('corelite-token', member).expect(200);
    }
    await request(platform.costasset.url).get('/api/costasset/v1/jobs/no-such-job').set('corelite-token', member).expect(404);
    for (let i = 0; i < 2; i++)
      await request(platform.authz.url).get('/core/authorization/v1/me').set('corelite-token', member).expect(200);
    const after = { costasset: await scrape(platform.costasset.directUrl), authz: await scrape(platform.authz.directUrl) };

    const http = 'corelite_http_request_duration_seconds';
    expect(delta(before.costasset, after.costasset, http, { method: 'GET', route: '/api/costasset/v1/costLineItems', status: '200' })).toBe(
      3,
    );
    expect(delta(before.costasset, after.costasset, http, { method: 'GET', route: '/api/costasset/v1/jobs/:jobId', status: '404' })).toBe(
      1,
    );
    expect(delta(before.authz, after.authz, http, { method: 'GET', route: '/core/authorization/v1/me', status: '200' })).toBe(2);
    // the scrape before counted itself in; nothing else ran in between on the in-flight gauge
    expect(total(after.costasset, 'corelite_http_requests_in_flight')).toBe(0);

    const cache = 'corelite_cache_requests_total';
    expect(delta(before.costasset, after.costasset, cache, { cache: 'principals', result: 'miss' })).toBe(1);
    expect(delta(before.costasset, after.costasset, cache, { cache: 'principals', result: 'hit' })).toBe(3);
    expect(delta(before.authz, after.authz, cache, { cache: 'principals', result: 'miss' })).toBe(1);
    expect(delta(before.authz, after.authz, cache, { cache: 'principals', result: 'hit' })).toBe(1);
    const nats = 'corelite_nats_request_duration_seconds';
    expect(delta(before.costasset, after.costasset, nats, { subject: 'authz.principal.resolve', outcome: 'ok' })).toBe(1);
    const db = 'corelite_db_operation_duration_seconds';
    expect(delta(before.costasset, after.costasset, db, { operation: 'find', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(delta(before.authz, after.authz, db, { operation: 'find', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
  });

  it('counts jobs by type and status with their duration, the job queue and the rows an ingestion read and wrote', async () => {
    const before = await scrape(platform.costasset.directUrl);
    const rows = [...validRows(7), { billedCost: 'not-a-number' }];
    const job = await ingestGpd(platform, admin, 'aws', await validGpd({ rows, withAssets: false }));
    // a rejected row ends the job completed_with_errors (INGEST_REJECTED_ROWS_THRESHOLD_PERCENT 0)
    expect(job.status).toBe('completed_with_errors');
    const after = await scrape(platform.costasset.directUrl);

    const type = { type: 'gpd.enrich' };
    expect(delta(before, after, 'corelite_jobs_started_total', type)).toBe(1);
    expect(delta(before, after, 'corelite_jobs_finished_total', { ...type, status: 'completed_with_errors' })).toBe(1);
    expect(delta(before, after, 'corelite_job_duration_seconds', { ...type, status: 'completed_with_errors' })).toBe(1);
    expect(delta(before, after, 'corelite_ingestion_rows_total', { source: 'gpd', outcome: 'read' })).toBe(8);
    expect(delta(before, after, 'corelite_ingestion_rows_total', { source: 'gpd', outcome: 'written' })).toBe(7);
    expect(delta(before, after, 'corelite_ingestion_rows_total', { source: 'gpd', outcome: 'rejected' })).toBe(1);
    // the queue is read from JetStream at every scrape: drained once the job is done
    expect(total(after, 'corelite_job_queue_depth', { queue: 'COSTASSET_JOBS', state: 'pending' })).toBe(0);
    expect(after.corelite_job_queue_depth.data.map((sample) => sample.labels.state).sort()).toEqual(['in_progress', 'pending']);
  });
});
