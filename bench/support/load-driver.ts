/** bench:load's load generator: autocannon driving one route, with the generator's own delays. */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

// autocannon ships no type declarations: the few fields used here.
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  headers: Record<string, string>;
  requests: { onResponse: (status: number, body: string, context: unknown, headers: Record<string, string>) => void }[];
}
interface AutocannonResult {
  requests: { sent: number };
  timeouts: number;
  errors: number;
}
interface AutocannonRun extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: AutocannonOptions) => AutocannonRun;

/** A request without an answer within this is a time-out (the bound). */
export const ANSWER_TIMEOUT_S = 30;
/** A refusal must reach the client within this (the bound). */
export const FAST_REFUSAL_MS = 50;

/** A span of time, in `performance.now()` milliseconds of the generator's thread. */
export type Span = [from: number, to: number];

export interface Route {
  name: string;
  path: string;
}

export interface Measured {
  route: string;
  phase: 'baseline' | 'load';
  connections: number;
  seconds: number;
  latencies: number[];
  /** Latencies of the 200s alone: admitted work, which must finish within its time limits. */
  okLatencies: number[];
  byStatus: Map<number, number>;
  refusalLatencies: number[];
  /** Latencies of the 503s by their problem `code` (SERVER_BUSY, DATABASE_TIMEOUT, ...). */
  refusalsByCode: Map<string, number[]>;
  refusalsWithoutRetryAfter: number;
  /** Report executions answered 200, by the `source` they name (rollup, line-items). */
  sources: Map<string, number>;
  timeouts: number;
  errors: number;
  /**
   * Sent and not answered when the run stopped: about one per client (each sends its next request
   * on every answer); never older than the time-out, which would have counted it as one.
   */
  inFlightAtEnd: number;
  /** When each refusal of FAST_REFUSAL_MS or more was sent and answered. */
  slowRefusals: Span[];
  /** The delays of the thread that drove this route while it did (shared by every route driven on that thread). */
  generator: GeneratorDelays;
}

/**
 * The load generator's own delays while it measures: its event-loop delay and its garbage
 * collections. A latency measured at the client includes them, so they tell the client's share of
 * a slow answer from the server's.
 */
export interface GeneratorDelays {
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  collections: number;
  collectionMsTotal: number;
  collectionMsMax: number;
  /** When the event loop stalled: a tick of a STALL_TICK_MS timer STALL_MS or more late. */
  stalls: Span[];
}

const DELAY_RESOLUTION_MS = 10;
const STALL_TICK_MS = 5;
const STALL_MS = 10;

function watchGenerator(): () => GeneratorDelays {
  const delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  // the histogram holds the time between two ticks of its timer: the delay is what exceeds the resolution
  const late = (ns: number) => Math.max(0, ns / 1e6 - DELAY_RESOLUTION_MS);
  const pauses: number[] = [];
  const gc = new PerformanceObserver((list) => list.getEntries().forEach((entry) => pauses.push(entry.duration)));
  const stalls: Span[] = [];
  let tick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    if (now - tick - STALL_TICK_MS >= STALL_MS) stalls.push([tick + STALL_TICK_MS, now]);
    tick = now;
  }, STALL_TICK_MS);
  delay.enable();
  gc.observe({ entryTypes: ['gc'] });
  return () => {
    clearInterval(ticker);
    delay.disable();
    gc.disconnect();
    return {
      loopDelayP50Ms: late(delay.percentile(50)),
      loopDelayP99Ms: late(delay.percentile(99)),
      loopDelayMaxMs: late(delay.max),
      collections: pauses.length,
      collectionMsTotal: pauses.reduce((sum, pause) => sum + pause, 0),
      collectionMsMax: Math.max(0, ...pauses),
      stalls,
    };
  };
}

/** Drives one route with autocannon on the calling thread. */
export async function drive(
  baseUrl: string,
  token: string,
  route: Route,
  connections: number,
  seconds: number,
  phase: Measured['phase'],
): Promise<Measured> {
  const measured: Measured = {
    route: route.name,
    phase,
    connections,
    seconds,
    latencies: [],
    okLatencies: [],
    byStatus: new Map(),
    refusalLatencies: [],
    refusalsByCode: new Map(),
    refusalsWithoutRetryAfter: 0,
    sources: new Map(),
    timeouts: 0,
    errors: 0,
    inFlightAtEnd: 0,
    slowRefusals: [],
    generator: {
      loopDelayP50Ms: 0,
      loopDelayP99Ms: 0,
      loopDelayMaxMs: 0,
      collections: 0,
      collectionMsTotal: 0,
      collectionMsMax: 0,
      stalls: [],
    },
  };
  const generatorDelays = watchGenerator();
  // onResponse runs just before the 'response' event of the same answer: it leaves the 503's code here
  let lastCode = '';
  const run = autocannon({
    url: baseUrl + route.path,
    connections,
    duration: seconds,
    timeout: ANSWER_TIMEOUT_S,
    headers: { 'corelite-token': token },
    requests: [
      {
        onResponse: (status, body, _context, headers) => {
          if (status === 503) {
            // raw header names, as the server wrote them
            const has = (header: string) => Object.keys(headers).some((name) => name.toLowerCase() === header);
            // the gateway's own refusals (heavy routes beyond every instance's bound) apart from the services'
            lastCode = `${/"code":"([A-Z_]+)"/.exec(body)?.[1] ?? 'none'}${has('corelite-refused-by') ? ' (gateway)' : ''}`;
            if (!has('retry-after')) measured.refusalsWithoutRetryAfter += 1;
          } else if (status === 200) {
            const source = /"source":"([a-z-]+)"/.exec(body)?.[1];
            if (source) measured.sources.set(source, (measured.sources.get(source) ?? 0) + 1);
          }
        },
      },
    ],
  });
  run.on('response', (_client, status, _bytes, ms) => {
    measured.latencies.push(ms);
    measured.byStatus.set(status, (measured.byStatus.get(status) ?? 0) + 1);
    if (status === 200) measured.okLatencies.push(ms);
    if (status === 503) {
      measured.refusalLatencies.push(ms);
      if (ms >= FAST_REFUSAL_MS) {
        const now = performance.now();
        measured.slowRefusals.push([now - ms, now]);
      }
      const byCode = measured.refusalsByCode.get(lastCode) ?? [];
      byCode.push(ms);
      measured.refusalsByCode.set(lastCode, byCode);
    }
  });
  const result = await run;
  measured.generator = generatorDelays();
  measured.timeouts = result.timeouts;
  measured.errors = result.errors - result.timeouts;
  measured.inFlightAtEnd = Math.max(0, result.requests.sent - measured.latencies.length - result.errors);
  return measured;
}
