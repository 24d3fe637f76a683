import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { REPO_ROOT } from '../../tools/stack/settings';
import { RunningGateway, startGateway } from '../../tools/stack/gateway';
import { OtlpReceiver, ReceivedSpan, startOtlpReceiver } from '../../tools/traces/otlp-receiver';
import { focusFile } from '../support/focus';
import { waitForJob } from '../support/ingest';
import { eventually, Platform, startPlatform } from '../support/platform';
import { freePorts, ServiceProcess, startServiceProcess } from '../support/service-process';

const SERVER = 2;
const CLIENT = 3;
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;

/** Every cost figure of a generated FOCUS CSV (the columns that hold costs and prices), as written. */
function amountsOf(csv: Buffer): Set<string> {
  const [header, ...rows] = csv.toString('utf8').trim().split('\n');
  const columns = header.split(',').flatMap((name, index) => (/Cost|Price/.test(name) ? [index] : []));
  const amounts = new Set<string>();
  for (const row of rows) {
    const cells = row.split(',');
    for (const index of columns) if (/^-?\d+\.\d{2,}$/.test(cells[index] ?? '')) amounts.add(cells[index]);
  }
  return amounts;
}

/**
 * One FOCUS import started through the gateway, with tracing on in both services (as processes,
 * exporting to a receiver of the test's own) and the worker killed mid-job: one trace holds the
 * gateway's trace id, the request, the NATS hops to authz, and both attempts of the job.
 */
describe('tracing: one trace from the gateway through NATS and a redelivered job', () => {
  let platform: Platform;
  let receiver: OtlpReceiver;
  let gateway: RunningGateway;
  let env: NodeJS.ProcessEnv;
  let costassetPort: number;
  let file: Awaited<ReturnType<typeof focusFile>>;
  const processes: ServiceProcess[] = [];
  const runDir = join(REPO_ROOT, '.stack', process.env.STACK_PROFILE || 'test', 'gateways', `tracing-${process.pid}`);
  const logsOf = (service: string) => processes.filter((started) => started.service === service).flatMap((started) => started.logs);

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    file = await focusFile({ version: '1.2', format: 'csv', rows: 30_000, periods: ['202401'] });
    const settings = { JOBS_ACK_WAIT_MS: '3000', GPD_BATCH_SIZE: '500', PRINCIPAL_CACHE_TTL_MS: '0' };
    platform = await startPlatform(settings);
    // the in-process services cannot be instrumented (nothing loads before their modules): processes run here
    await platform.costasset.app.close();
    await platform.authz.app.close();
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
    const [authzPort, port] = await freePorts(2);
    costassetPort = port;
    processes.push(await startServiceProcess('authz', { ...platform.env, ...settings, ...tracing }, 'authz-1', authzPort));
    env = {
      ...platform.env,
      ...settings,
      ...tracing,
      AUTHZ_JWKS_URL: `http://127.0.0.1:${authzPort}/core/authorization/v1/.well-known/jwks.json`,
    };
    processes.push(await startServiceProcess('costasset', env, 'worker-1', costassetPort));
    gateway = await startGateway({
      port: 0,
      upstreams: { authz: [`127.0.0.1:${authzPort}`], costasset: [`127.0.0.1:${costassetPort}`] },
      admission: { maxInFlight: 32, maxHeavyInFlight: 4 },
      runDir,
      accessLog: true,
      traceSampledPercent: 100,
      objectStoreUrl: process.env.S3_ENDPOINT,
    });
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
    rmSync(runDir, { recursive: true, force: true });
    for (const started of processes) await started.kill();
    await receiver?.close();
  });

  it('yields one trace: gateway, request, principal over NATS, and the job on both workers', async () => {
    const admin = await platform.token({ sub: 'admin' });
    const api = () => request(gateway.url);
    const created = await api()
      .post('/api/costasset/v1/focus/uploads')
      .set('corelite-token', admin)
      .send({ files: [{ name: file.name }] })
      .expect(201);
    expect((await fetch(created.body.files[0].uploadUrl, { method: 'PUT', body: file.body })).status).toBe(200);
    const started = await api().post(created.body.importPath).set('corelite-token', admin).send({}).expect(202);
    const requestId = started.headers['x-request-id'];
    const jobId: string = started.body.jobId;

    // the worker is killed while it writes; the job is redelivered to the next process
    await eventually(
      async () => {
        const job = (await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200)).body;
        expect(job.status).toBe('running');
        expect(job.progress.done).toBeGreaterThan(0);
      },
      30_000,
      20,
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // its finished batch spans are exported (every 100 ms)
    await processes[1].kill();
    processes.push(await startServiceProcess('costasset', env, 'worker-2', costassetPort));
    const done = await waitForJob({ ...platform, costasset: { ...platform.costasset, url: gateway.url } }, admin, jobId, 120_000);
    expect(['succeeded', 'completed_with_errors']).toContain(done.status);

    // the gateway started the trace: its id is in the access log line of the import request
    let traceId = '';
    await eventually(async () => {
      const line = readFileSync(gateway.accessLog!, 'utf8')
        .split('\n')
        .find((entry) => entry.includes(`"POST ${created.body.importPath} `));
      traceId = /trace_id=([0-9a-f]{32})/.exec(line ?? '')?.[1] ?? '';
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    }, 5_000);

    let trace: ReceivedSpan[] = [];
    await eventually(async () => {
      trace = receiver.spans.filter((span) => span.traceId === traceId);
      const ofTheImport = (span: ReceivedSpan) => span.name === 'job attempt' && span.attributes['corelite.job.id'] === jobId;
      expect(trace.some((span) => ofTheImport(span) && span.instance === 'worker-2')).toBe(true);
    }, 10_000);
    const describe = (span: ReceivedSpan) => `${span.service}/${span.instance} ${span.name}`;

    const serverSpan = trace.find(
      (span) => span.service === 'costasset' && span.kind === SERVER && span.attributes['http.request.method'] === 'POST',
    );
    expect(serverSpan).toBeDefined();
    expect(serverSpan!.attributes).toMatchObject({
      'http.route': '/api/costasset/v1/focus/uploads/:uploadId/import',
      'corelite.tenant.id': 'default',
    });
    // the gateway is the parent: the span id it put in the traceparent it started
    expect(serverSpan!.parentSpanId).toBe(traceId.slice(0, 16));

    const principalRequest = trace.find((span) => span.name === 'send authz.principal.resolve' && span.kind === CLIENT);
    expect(principalRequest).toMatchObject({ service: 'costasset', parentSpanId: serverSpan!.spanId });
    const principalHandler = trace.find((span) => span.name === 'process authz.principal.resolve' && span.kind === SERVER);
    expect(principalHandler).toMatchObject({
      service: 'authz',
      parentSpanId: principalRequest!.spanId,
      attributes: { 'corelite.tenant.id': 'default' },
    });

    // the import's attempts (the anomaly detection the import's end queues is in the trace too, under its event)
    const attempts = trace.filter((span) => span.name === 'job attempt' && span.attributes['corelite.job.id'] === jobId);
    expect(attempts.length).toBeGreaterThan(0);
    for (const attempt of attempts) {
      expect(attempt.parentSpanId).toBe(serverSpan!.spanId);
      expect(attempt.links).toEqual([{ traceId, spanId: serverSpan!.spanId }]);
      expect(attempt.attributes).toMatchObject({
        'corelite.job.id': jobId,
        'corelite.job.type': 'focus.import',
        'corelite.upload.id': created.body.uploadId,
      });
    }
    expect(attempts.find((span) => span.instance === 'worker-2')!.attributes['corelite.job.attempt']).toBeGreaterThanOrEqual(2);
    // both workers' batches are in the trace: the first attempt's before the kill, the redelivery's after
    const batches = trace.filter((span) => span.name === 'write batch');
    expect(new Set(batches.map((span) => span.instance))).toEqual(new Set(['worker-1', 'worker-2']));
    expect(trace.some((span) => span.name === 'rollups finish' && span.instance === 'worker-2')).toBe(true);
    expect(trace.map(describe)).toEqual(expect.arrayContaining(['costasset/worker-2 job attempt']));

    // every log line of the request, and of its job on either worker, carries the trace id
    const costassetLines = logsOf('costasset').filter(
      (line) => (line.req as { id?: string } | undefined)?.id === requestId || line.jobId === jobId,
    );
    expect(costassetLines.length).toBeGreaterThan(2);
    expect(costassetLines.filter((line) => line.trace_id !== traceId)).toEqual([]);
    expect(costassetLines.every((line) => typeof line.span_id === 'string')).toBe(true);
    const authzLines = logsOf('authz').filter(
      (line) => line.trace_id === traceId || (line.req as { id?: string } | undefined)?.id === requestId,
    );
    expect(authzLines.filter((line) => line.trace_id !== traceId)).toEqual([]);
  }, 240_000);

  it('exports no token, secret or cost figure in any span attribute', () => {
    expect(receiver.spans.length).toBeGreaterThan(0);
    const secrets = Object.entries(env)
      .filter(([name, value]) => /PASSWORD|SECRET|PRIVATE|TOKEN|_KEY$/.test(name) && typeof value === 'string' && value.length >= 6)
      .map(([, value]) => value as string);
    // the figures of the file the test imported, as the job read them
    const amounts = amountsOf(file.body);
    expect(amounts.size).toBeGreaterThan(100);
    const strings: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    for (const span of receiver.spans) {
      for (const key of Object.keys(span.attributes)) expect(key).not.toMatch(/cost|amount|price|token|secret|password/i);
      collect([span.attributes, span.resource, span.events, span.name]);
    }
    expect(strings.filter((value) => JWT.test(value))).toEqual([]);
    expect(strings.filter((value) => secrets.some((secret) => value.includes(secret)))).toEqual([]);
    const figures = strings.flatMap((value) => value.match(/-?\d+\.\d+/g) ?? []);
    expect(figures.filter((figure) => amounts.has(figure))).toEqual([]);
  });
});
