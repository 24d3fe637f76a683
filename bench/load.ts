/**
 * `npm run bench:load -- [--rows 1000000] [--connections 200] [--duration 30] [--baseline 10] [--traces [--sample 0.1]]`
 * `--traces`: both services trace (OTEL_TRACES_SAMPLER parentbased_traceidratio at `--sample`, the
 * gateway starting traces sampled at the same share) and export to a local OTLP receiver.
 * Both services as real processes behind a gateway of their own (nginx, the routing table of
 * `npm start`; `BENCH_GATEWAY_PORT`, any free port by default), N line items seeded with the
 * driver, then C concurrent clients for T seconds through the gateway, split evenly over four
 * routes run at the same time: a line-items page, a filtered page, a report execution and authz's
 * `/me`. The seeded line items bypass the services, so their rollups are backfilled first, as for
 * a tenant whose data predates rollups: the bench waits until a report execution answers from
 * them and prints how long that took. Baseline in the same run: each route alone, one client,
 * before the load. Prints per route req/s, p50/p95/p99, answers by status, time-outs (no answer
 * within 30 s), the 503s by problem code with their latencies (share under 50 ms) and whether each
 * carried `Retry-After` (the gateway's own refusals, `Corelite-Refused-By: gateway`, apart as
 * `SERVER_BUSY (gateway)`), the `source` of the report executions, then the seconds until both
 * services answer `/health/ready` 200 after the load, the CPU seconds of each service, the
 * gateway and the load generator during the load, the generator's own delays (event loop, garbage
 * collections; how many slow refusals spanned a stall of its event loop), the requests in flight
 * by Little's law for each route (a check of the client's clock), and the acceptance lines.
 */
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { admissionBoundsOf } from '@lib/config';
import { startGateway, traceSampledPercentOf } from '../tools/stack/gateway';
import { REPO_ROOT } from '../tools/stack/settings';
import { OtlpReceiver, startOtlpReceiver } from '../tools/traces/otlp-receiver';
import { lineItem } from './support/line-items';
import { ANSWER_TIMEOUT_S, drive, FAST_REFUSAL_MS, GeneratorDelays, Measured, Route, Span } from './support/load-driver';
import { startServices } from './support/services';
import { numberArg, summarize } from './support/stats';

const BATCH = 10_000;
/** Longest wait for the rollup backfill of the seeded line items. */
const BACKFILL_TIMEOUT_MS = 20 * 60_000;

async function secondsUntilReady(urls: string[]): Promise<number> {
  const started = performance.now();
  const deadline = started + 300_000;
  const ready = async (url: string) =>
    (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined))?.status === 200;
  while (performance.now() < deadline) {
    if ((await Promise.all(urls.map(ready))).every(Boolean)) return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Runs the report once (which starts the rollup backfill of line items written around the
 * services), then again until it answers from the rollups; the seconds it took.
 */
async function waitForRollups(url: string, token: string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < BACKFILL_TIMEOUT_MS) {
    const answer = await fetch(url, { headers: { 'corelite-token': token } });
    if (answer.status !== 200) throw new Error(`the report execution answers ${answer.status} before the load: ${await answer.text()}`);
    if (((await answer.json()) as { source?: string }).source === 'rollup') return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`the rollups were not backfilled within ${BACKFILL_TIMEOUT_MS / 60_000} minutes`);
}

/** A few process figures from a service's own `/metrics` (CPU seconds used, event-loop lag since the last scrape). */
async function processFigures(serviceUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  // refusals as the service itself timed them (first middleware to last byte), all methods
  const refused = (suffix: string, le?: string) =>
    text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith(`corelite_http_request_duration_seconds_${suffix}{`) &&
          line.includes('route="refused"') &&
          (!le || line.includes(`le="${le}"`)),
      )
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    refusals: refused('count'),
    refusalsWithin5Ms: refused('bucket', '0.005'),
    cpuSeconds: value('corelite_process_cpu_seconds_total'),
    lagP99Ms: value('corelite_nodejs_eventloop_lag_p99_seconds') * 1000,
    lagMaxMs: value('corelite_nodejs_eventloop_lag_max_seconds') * 1000,
  };
}

/** CPU seconds used so far by a process and its children (nginx: the master and its worker), from /proc (Linux). */
function processTreeCpuSeconds(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  // utime and stime, in clock ticks of 1/100 s, after the command's closing parenthesis
  const ticks = (id: number) => readFileSync(`/proc/${id}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 13).map(Number);
  return [pid, ...children].reduce((sum, id) => sum + ticks(id).reduce((a, b) => a + b, 0), 0) / 100;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '–');

function row(m: Measured): string {
  const s = summarize(m.latencies);
  const statuses = [...m.byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}: ${count.toLocaleString()}`)
    .join(', ');
  const refusals = m.refusalLatencies.length
    ? `p99 ${ms(summarize(m.refusalLatencies).p99)}, max ${ms(summarize(m.refusalLatencies).max)}`
    : '–';
  const ok = summarize(m.okLatencies);
  return (
    `| ${m.route} | ${m.phase} | ${m.connections} | ${(m.latencies.length / m.seconds).toFixed(1)} | ` +
    `${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(ok.p50)} / ${ms(ok.p99)} / ${ms(ok.max)} | ${statuses || '–'} ` +
    `| ${m.timeouts} | ${m.errors} | ${m.inFlightAtEnd} | ${refusals} | ${m.refusalsWithoutRetryAfter} |`
  );
}

const generatorLine = (delays: GeneratorDelays) =>
  `event-loop delay p50 ${ms(delays.loopDelayP50Ms)} ms, p99 ${ms(delays.loopDelayP99Ms)} ms, max ${ms(delays.loopDelayMaxMs)} ms; ` +
  `${delays.collections} garbage collections, ${ms(delays.collectionMsTotal)} ms in all, the longest ${ms(delays.collectionMsMax)} ms`;

/**
 * Little's law: answers a second × mean latency = requests in flight, which cannot exceed the
 * clients. More means the client timed answers from before it sent their requests (autocannon does
 * so on a connection the server closed: docs/running.md, Under load).
 */
function littleLine(m: Measured): string {
  const mean = m.latencies.reduce((sum, latency) => sum + latency, 0) / m.latencies.length;
  const inFlight = (m.latencies.length / m.seconds) * (mean / 1000);
  const verdict = inFlight <= m.connections * 1.05 ? 'consistent' : 'MORE than the clients: these latencies are inflated by the client';
  return `${m.route}: ${inFlight.toFixed(1)} requests in flight by Little's law for ${m.connections} clients (${verdict})`;
}

/**
 * The slow refusals against the stalls of the load generator's own event loop: the time within
 * each refusal that the client itself was late, and what is left of its latency without it (what
 * the gateway, the network and the scheduler took).
 */
function slowRefusalsLine(loaded: Measured[]): string {
  const slow = loaded.flatMap((m) => m.slowRefusals);
  // every route's driver watched the same thread: their stalls overlap, so they are merged first
  const stalls: Span[] = [];
  for (const [from, to] of loaded.flatMap((m) => m.generator.stalls).sort(([a], [b]) => a - b)) {
    const last = stalls[stalls.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else stalls.push([from, to]);
  }
  const lateWithin = ([sent, answered]: Span) =>
    stalls.reduce((sum, [from, to]) => sum + Math.max(0, Math.min(to, answered) - Math.max(from, sent)), 0);
  const rest = slow.map((refusal) => refusal[1] - refusal[0] - lateWithin(refusal));
  const longest = Math.max(0, ...stalls.map(([from, to]) => to - from));
  return (
    `refusals of ${FAST_REFUSAL_MS} ms or more at the client: ${slow.length}; without the time the load ` +
    `generator's own event loop was late within them: max ${ms(Math.max(0, ...rest))} ms ` +
    `(${rest.filter((value) => value >= FAST_REFUSAL_MS).length} still ${FAST_REFUSAL_MS} ms or more); ` +
    `its event loop was late by 10 ms or more ${stalls.length} times during the load, by ${ms(longest)} ms at most`
  );
}

const fastShare = (latencies: number[]) => latencies.filter((latency) => latency < FAST_REFUSAL_MS).length / latencies.length;

/** One line per route and 503 code: how many, how fast. */
function refusalRows(m: Measured): string[] {
  return [...m.refusalsByCode.entries()].map(([code, latencies]) => {
    const s = summarize(latencies);
    return (
      `| ${m.route} | ${code} | ${latencies.length.toLocaleString()} | ${ms(s.p50)} | ` +
      `${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${(100 * fastShare(latencies)).toFixed(1)} % |`
    );
  });
}

async function main(): Promise<void> {
  const rows = numberArg('rows', 1_000_000);
  const connections = numberArg('connections', 200);
  const duration = numberArg('duration', 30);
  const baselineSeconds = numberArg('baseline', 10);
  const sample = process.argv.includes('--traces') ? numberArg('sample', 0.1) : undefined;
  const receiver: OtlpReceiver | undefined = sample === undefined ? undefined : await startOtlpReceiver({ keep: false });
  const tracing: NodeJS.ProcessEnv = receiver
    ? {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: String(sample),
      }
    : {};
  const services = await startServices('load', tracing);
  const runDir = join(REPO_ROOT, '.stack', process.env.STACK_PROFILE ?? 'dev', 'gateways', `bench-load-${process.pid}`);
  const gateway = await startGateway({
    // BENCH_GATEWAY_PORT keeps benchmarks of several checkouts on one machine apart (0: any free port)
    port: Number(process.env.BENCH_GATEWAY_PORT ?? 0),
    upstreams: { authz: [new URL(services.authzUrl).host], costasset: [new URL(services.costassetUrl).host] },
    admission: admissionBoundsOf(services.env),
    runDir,
    traceSampledPercent: traceSampledPercentOf(services.env),
  });
  const client = await MongoClient.connect(services.env.MONGODB_URI ?? '');
  try {
    const collection = client.db().collection('cost_line_items');
    const loadStart = performance.now();
    for (let offset = 0; offset < rows; offset += BATCH) {
      const size = Math.min(BATCH, rows - offset);
      await collection.insertMany(
        Array.from({ length: size }, (_, k) => lineItem(offset + k)),
        { ordered: false },
      );
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    console.log(
      `seeded ${rows.toLocaleString()} line items in ${loadSeconds.toFixed(1)} ` +
        `s (${Math.round(rows / loadSeconds).toLocaleString()} rows/s)`,
    );

    const token = await services.token();
    const created = await fetch(`${gateway.url}/api/costasset/v1/reportModels/bench-load?templateId=cost-by-provider`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'corelite-token': token },
      body: JSON.stringify({ append: false, type: 'v1', vtags: [], expr: 'period == ${period}' }),
    });
    if (!created.ok) throw new Error(`creating the report model failed: ${created.status} ${await created.text()}`);
    const params = encodeURIComponent(JSON.stringify({ period: '202406' }));
    const backfillSeconds = await waitForRollups(
      `${gateway.url}/api/costasset/v1/reportModels/bench-load/execution?templateParams=${params}`,
      token,
    );
    console.log(
      `rollups of the seeded line items backfilled in ${backfillSeconds.toFixed(1)} s (report executions answer from source "rollup")`,
    );
    const routes: Route[] = [
      { name: 'line-items page', path: '/api/costasset/v1/costLineItems?limit=100' },
      { name: 'filtered page', path: '/api/costasset/v1/costLineItems?limit=100&providerName=aws&period=202406' },
      { name: 'report execution', path: `/api/costasset/v1/reportModels/bench-load/execution?templateParams=${params}` },
      { name: 'authz /me', path: '/core/authorization/v1/me' },
    ];
    for (const route of routes) {
      const answer = await fetch(gateway.url + route.path, { headers: { 'corelite-token': token } });
      if (answer.status !== 200) throw new Error(`${route.name} answers ${answer.status} before the load: ${await answer.text()}`);
    }

    const results: Measured[] = [];
    for (const route of routes) results.push(await drive(gateway.url, token, route, 1, baselineSeconds, 'baseline'));
    const each = Math.max(1, Math.floor(connections / routes.length));
    const loadAverage = () =>
      loadavg()
        .map((value) => value.toFixed(2))
        .join(', ');
    console.log(`load average before the load: ${loadAverage()}`);
    const serviceUrls = { authz: services.authzUrl, costasset: services.costassetUrl };
    const figuresBefore = await Promise.all(Object.values(serviceUrls).map(processFigures));
    const clientCpuBefore = process.cpuUsage();
    const gatewayCpuBefore = processTreeCpuSeconds(gateway.pid);
    console.log(`load: ${each * routes.length} clients (${each} per route) for ${duration} s through the gateway ${gateway.url}`);
    results.push(...(await Promise.all(routes.map((route) => drive(gateway.url, token, route, each, duration, 'load')))));
    const clientCpuSeconds = (({ user, system }) => (user + system) / 1e6)(process.cpuUsage(clientCpuBefore));
    const gatewayCpuSeconds = processTreeCpuSeconds(gateway.pid) - gatewayCpuBefore;
    const figuresAfter = await Promise.all(Object.values(serviceUrls).map(processFigures));
    const readyAfter = await secondsUntilReady([services.authzUrl, services.costassetUrl]);
    console.log(`load average at the end of the load: ${loadAverage()}`);

    console.log(`\n${new Date().toISOString().slice(0, 10)}, ${rows.toLocaleString()} line items; latencies in ms`);
    console.log(
      '| route | phase | clients | req/s | p50 | p95 | p99 | 200s: p50 / p99 / max | answers ' +
        'by status | time-outs | errors | cut by the end | 503 latency | 503 without Retry-After |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const measured of results) console.log(row(measured));
    console.log('\n503s by problem code (latency in ms at the client)');
    console.log(`| route | code | count | p50 | p95 | p99 | max | under ${FAST_REFUSAL_MS} ms |`);
    console.log('|---|---|---|---|---|---|---|---|');
    for (const measured of results.filter((m) => m.phase === 'load')) for (const line of refusalRows(measured)) console.log(line);
    const execution = results.filter((m) => m.route === 'report execution');
    for (const measured of execution) {
      const sources = [...measured.sources.entries()].map(([source, count]) => `${source}: ${count.toLocaleString()}`).join(', ');
      console.log(`report executions answered 200 (${measured.phase}), by source: ${sources || 'none'}`);
    }
    Object.keys(serviceUrls).forEach((service, i) =>
      console.log(
        `${service} during the load: ${(figuresAfter[i].cpuSeconds - figuresBefore[i].cpuSeconds).toFixed(1)} CPU seconds, ` +
          `event-loop lag p99 ${ms(figuresAfter[i].lagP99Ms)} ms, max ${ms(figuresAfter[i].lagMaxMs)} ms; ` +
          `${(figuresAfter[i].refusals - figuresBefore[i].refusals).toLocaleString()} refusals, ` +
          `${(figuresAfter[i].refusalsWithin5Ms - figuresBefore[i].refusalsWithin5Ms).toLocaleString()} of them answered ` +
          `within 5 ms of their first byte read`,
      ),
    );
    console.log(
      `gateway (nginx) during the load: ${gatewayCpuSeconds.toFixed(1)} CPU seconds; ` +
        `load generator (this process): ${clientCpuSeconds.toFixed(1)} CPU seconds`,
    );
    // every route's clients run on this one thread: its delays are the same for all
    console.log(`load generator (one thread for every route) during the load: ${generatorLine(results[results.length - 1].generator)}`);
    for (const measured of results.filter((m) => m.phase === 'load')) console.log(littleLine(measured));
    console.log(slowRefusalsLine(results.filter((m) => m.phase === 'load')));
    console.log(
      receiver
        ? `tracing on: sampler parentbased_traceidratio ${sample}, ${receiver.received.toLocaleString()} ` +
            `spans received by the local OTLP receiver (${receiver.refused} exports refused)`
        : 'tracing off (no OTLP endpoint)',
    );
    console.log(`\nboth services ready ${readyAfter.toFixed(1)} s after the load ended`);

    const loaded = results.filter((m) => m.phase === 'load');
    const unanswered = loaded.reduce((sum, m) => sum + m.timeouts + m.errors, 0);
    const unexpected = loaded.reduce(
      (sum, m) =>
        sum + [...m.byStatus.entries()].filter(([status]) => status !== 200 && status !== 503).reduce((n, [, count]) => n + count, 0),
      0,
    );
    const refusals = loaded.flatMap((m) => m.refusalLatencies);
    const slowRefusals = refusals.filter((latency) => latency >= FAST_REFUSAL_MS).length;
    const byCode = new Map<string, number[]>();
    for (const m of loaded) for (const [code, latencies] of m.refusalsByCode) byCode.set(code, [...(byCode.get(code) ?? []), ...latencies]);
    const split = [...byCode.entries()]
      .map(
        ([code, latencies]) =>
          `${code} ${latencies.length} (${latencies.filter((latency) => latency >= FAST_REFUSAL_MS).length} ` +
          `of them ${FAST_REFUSAL_MS} ms or more, p99 ${ms(summarize(latencies).p99)} ms)`,
      )
      .join(', ');
    const withoutRetryAfter = loaded.reduce((sum, m) => sum + m.refusalsWithoutRetryAfter, 0);
    const me = loaded.find((m) => m.route === 'authz /me') as Measured;
    const meP99 = summarize(me.latencies).p99;
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    console.log('\nacceptance:');
    console.log(`- no request without an answer within ${ANSWER_TIMEOUT_S} s: ${unanswered} without one (${verdict(unanswered === 0)})`);
    console.log(
      `- every answer a 200, or a 503 with Retry-After in under ${FAST_REFUSAL_MS} ms: ` +
        `${unexpected} other statuses, ${refusals.length} 503s of which ${slowRefusals} took ` +
        `${FAST_REFUSAL_MS} ms or more and ${withoutRetryAfter} had no Retry-After; by code: ` +
        `${split || 'none'} (${verdict(unexpected === 0 && slowRefusals === 0 && withoutRetryAfter === 0)})`,
    );
    console.log(`- authz /me p99 under 500 ms during the costasset load: ${ms(meP99)} ms (${verdict(meP99 < 500)})`);
    console.log(`- both services ready within 5 s after the load: ${readyAfter.toFixed(1)} s (${verdict(readyAfter <= 5)})`);
  } finally {
    await client
      .db()
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    await gateway.stop();
    rmSync(runDir, { recursive: true, force: true });
    await services.stop();
    await receiver?.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
