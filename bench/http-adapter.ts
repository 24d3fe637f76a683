/**
 * HTTP adapter benchmark: the same minimal Nest application on Express and on Fastify.
 *
 *   npm run bench:http            (= tsx bench/http-adapter.ts)
 *
 * Each adapter is booted in turn (never both at once) in a child process on a free
 * 127.0.0.1 port, so the server and the load generator (autocannon, in this parent
 * process) each get their own core. Before measuring, the script checks that the
 * global ValidationPipe really validates under the current runner (an invalid POST must
 * be refused with 400) and aborts otherwise.
 *
 * tsx (esbuild) does not emit `design:paramtypes`, which the ValidationPipe needs to know
 * the DTO class of a parameter. The `@ParamTypes(...)` decorator below writes that
 * metadata explicitly, so the script behaves the same under tsx and under tsc.
 *
 * Knobs (environment): BENCH_CONNECTIONS (10), BENCH_DURATION seconds (8), BENCH_WARMUP seconds (2).
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Body,
  Controller,
  Get,
  Injectable,
  MiddlewareConsumer,
  Module,
  NestMiddleware,
  NestModule,
  Post,
  Query,
  ValidationPipe,
  type INestApplication,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Max, Min } from 'class-validator';

// autocannon ships no type declarations (and @types/autocannon is not installed): the few fields used here.
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}
/** What autocannon() returns: an EventEmitter that is also a promise of the result. */
interface AutocannonRun extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: AutocannonOptions) => AutocannonRun;

type AdapterName = 'express' | 'fastify';
const ADAPTERS: AdapterName[] = ['express', 'fastify'];

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 2);
const HOST = '127.0.0.1';

// ---------------------------------------------------------------------------------------
// The application under test
// ---------------------------------------------------------------------------------------

/** What `emitDecoratorMetadata` would emit for a method; esbuild/tsx does not emit it. */
function ParamTypes(...types: unknown[]): MethodDecorator {
  return (target, key) => Reflect.defineMetadata('design:paramtypes', types, target, key);
}

const CATEGORIES = ['compute', 'storage', 'network', 'database'] as const;

class ListItemsQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

class CreateItemDto {
  @IsString()
  @Length(1, 64)
  name!: string;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  quantity!: number;

  @Type(() => Number)
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  price!: number;

  @IsIn(CATEGORIES)
  category!: (typeof CATEGORIES)[number];
}

interface Item {
  id: number;
  name: string;
  quantity: number;
  price: number;
  category: string;
}

const CATALOGUE: Item[] = Array.from({ length: 100 }, (_, i) => ({
  id: i + 1,
  name: `item-${i + 1}`,
  quantity: (i * 7) % 113,
  price: Math.round(i * 3.17 * 100) / 100,
  category: CATEGORIES[i % CATEGORIES.length],
}));

/** Set by the handlers so the self-check can prove that `transform: true` produced real DTO instances. */
const seen = { bodyIsDto: false, limitType: 'unset' as string };

@Controller('items')
class ItemsController {
  @Get()
  @ParamTypes(ListItemsQuery)
  list(@Query() query: ListItemsQuery): Item[] {
    seen.limitType = typeof query.limit;
    return CATALOGUE.slice(0, query.limit ?? 50);
  }

  @Post()
  @ParamTypes(CreateItemDto)
  create(@Body() body: CreateItemDto): CreateItemDto {
    seen.bodyIsDto = body instanceof CreateItemDto;
    return body;
  }
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Same behaviour as the platform's request id: keep a safe caller id, otherwise make one, echo it. */
@Injectable()
class RequestIdMiddleware implements NestMiddleware {
  use(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const offered = req.headers['x-request-id'];
    res.setHeader('x-request-id', typeof offered === 'string' && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID());
    next();
  }
}

@Module({ controllers: [ItemsController] })
class BenchModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestIdMiddleware).forRoutes(ItemsController);
  }
}

async function serve(adapter: AdapterName): Promise<void> {
  const httpAdapter = adapter === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app: INestApplication = await NestFactory.create(BenchModule, httpAdapter, { logger: ['error', 'warn'] });
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }));
  await app.listen(0, HOST);
  const { port } = app.getHttpServer().address() as AddressInfo;
  process.on('message', async (message) => {
    if (message === 'seen') process.send!({ seen });
    if (message === 'stop') {
      await app.close();
      process.exit(0);
    }
  });
  process.send!({ ready: true, port });
}

// ---------------------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------------------

const VALID_ITEM = { name: 'bench-item', quantity: 3, price: 12.5, category: 'storage' };

interface Row {
  adapter: AdapterName;
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

interface Scenario {
  name: string;
  /** Appended to the base URL (autocannon has no top-level `path` option: it would silently hit `/`). */
  path: string;
  options: Omit<AutocannonOptions, 'url' | 'connections' | 'duration'>;
  expectedStatus: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'GET /items?limit=50', path: '/items?limit=50', options: { method: 'GET' }, expectedStatus: 200 },
  {
    name: 'POST /items',
    path: '/items',
    options: {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(VALID_ITEM),
    },
    expectedStatus: 201,
  },
];

function fail(message: string): never {
  throw new Error(message);
}

function startServer(adapter: AdapterName): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    // execArgv is inherited, so under tsx the child runs through tsx as well.
    const child = fork(__filename, ['--serve', adapter], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const timer = setTimeout(() => reject(new Error(`${adapter}: server did not start in 30 s`)), 30_000);
    child.once('message', (message: { ready?: boolean; port?: number }) => {
      clearTimeout(timer);
      if (message.ready && message.port) resolve({ child, port: message.port });
      else reject(new Error(`${adapter}: unexpected message ${JSON.stringify(message)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${adapter}: server exited early (code ${code})`));
    });
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send('stop');
  });
}

function askSeen(child: ChildProcess): Promise<typeof seen> {
  return new Promise((resolve) => {
    child.once('message', (message: { seen: typeof seen }) => resolve(message.seen));
    child.send('seen');
  });
}

/** Proves the app behaves as the real ones will, under the runner in use; throws otherwise. */
async function selfCheck(adapter: AdapterName, base: string, child: ChildProcess): Promise<void> {
  const post = (body: unknown) =>
    fetch(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  const invalid = await post({ name: '', quantity: -1, price: 'cheap', category: 'gold' });
  if (invalid.status !== 400) fail(`${adapter}: invalid POST answered ${invalid.status}, expected 400 — validation is NOT running`);
  const invalidBody = (await invalid.json()) as { message?: unknown };
  if (!Array.isArray(invalidBody.message) || invalidBody.message.length < 4)
    fail(`${adapter}: invalid POST did not report the 4 field errors: ${JSON.stringify(invalidBody)}`);

  const extra = await post({ ...VALID_ITEM, isAdmin: true });
  if (extra.status !== 400) fail(`${adapter}: POST with an unknown field answered ${extra.status}, expected 400 (forbidNonWhitelisted)`);

  const badQuery = await fetch(`${base}/items?limit=abc`);
  if (badQuery.status !== 400) fail(`${adapter}: GET ?limit=abc answered ${badQuery.status}, expected 400`);

  const created = await post(VALID_ITEM);
  if (created.status !== 201) fail(`${adapter}: valid POST answered ${created.status}, expected 201`);
  const createdBody = await created.json();
  if (JSON.stringify(createdBody) !== JSON.stringify(VALID_ITEM)) fail(`${adapter}: valid POST echoed ${JSON.stringify(createdBody)}`);
  if (!created.headers.get('x-request-id')) fail(`${adapter}: POST response has no x-request-id`);

  const listed = await fetch(`${base}/items?limit=50`, { headers: { 'x-request-id': 'bench-check-1' } });
  if (listed.status !== 200) fail(`${adapter}: GET answered ${listed.status}`);
  const items = (await listed.json()) as unknown[];
  if (!Array.isArray(items) || items.length !== 50)
    fail(`${adapter}: GET returned ${Array.isArray(items) ? items.length : typeof items} items, expected 50`);
  if (listed.headers.get('x-request-id') !== 'bench-check-1') fail(`${adapter}: x-request-id not echoed by the middleware`);

  const state = await askSeen(child);
  if (!state.bodyIsDto) fail(`${adapter}: body was not transformed into a CreateItemDto instance`);
  if (state.limitType !== 'number') fail(`${adapter}: query limit arrived as ${state.limitType}, expected number`);
}

/**
 * autocannon's own latency histogram stores whole milliseconds (a sub-millisecond p50 prints as 0),
 * so the per-response times (float ms, from process.hrtime) are collected here instead.
 */
async function load(base: string, scenario: Scenario, durationS: number): Promise<{ result: AutocannonResult; latencies: Float64Array }> {
  const times: number[] = [];
  const run = autocannon({ url: base + scenario.path, connections: CONNECTIONS, duration: durationS, ...scenario.options });
  run.on('response', (_client, _status, _bytes, responseTimeMs) => times.push(responseTimeMs));
  const result = await run;
  return { result, latencies: Float64Array.from(times).sort() };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function measure(adapter: AdapterName): Promise<Row[]> {
  const { child, port } = await startServer(adapter);
  const base = `http://${HOST}:${port}`;
  try {
    await selfCheck(adapter, base, child);
    process.stdout.write(`${adapter}: self-check passed (validation, whitelist, transform, x-request-id) on ${base}\n`);
    const rows: Row[] = [];
    for (const scenario of SCENARIOS) {
      await load(base, scenario, WARMUP_S);
      const { result, latencies } = await load(base, scenario, DURATION_S);
      const bad = result.errors + result.timeouts + result.non2xx;
      if (bad > 0) fail(`${adapter} ${scenario.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
      const expected = result.statusCodeStats?.[String(scenario.expectedStatus)]?.count;
      if (expected !== undefined && expected !== result.requests.total)
        fail(`${adapter} ${scenario.name}: only ${expected}/${result.requests.total} answered ${scenario.expectedStatus}`);
      rows.push({
        adapter,
        scenario: scenario.name,
        rps: result.requests.average,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        requests: result.requests.total,
      });
      process.stdout.write(`${adapter}: ${scenario.name} done (${Math.round(result.requests.average)} req/s)\n`);
    }
    return rows;
  } finally {
    await stopServer(child);
  }
}

function printTable(rows: Row[]): void {
  const ratioFor = (scenario: string, pick: (r: Row) => number) => {
    const e = rows.find((r) => r.adapter === 'express' && r.scenario === scenario)!;
    const f = rows.find((r) => r.adapter === 'fastify' && r.scenario === scenario)!;
    return pick(f) / pick(e);
  };
  const header = ['adapter', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'fastify/express req/s'];
  const body = rows.map((r) => [
    r.adapter,
    r.scenario,
    r.rps.toFixed(0),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    String(r.requests),
    r.adapter === 'fastify' ? ratioFor(r.scenario, (x) => x.rps).toFixed(2) + 'x' : '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  console.log();
  console.log(`Node ${process.version}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per scenario, 127.0.0.1`);
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const row of body) console.log(line(row));
  console.log();
  const verdicts = SCENARIOS.map((s) => {
    const ratio = ratioFor(s.name, (x) => x.rps);
    const faster = ratio >= 1 ? 'fastify' : 'express';
    const factor = ratio >= 1 ? ratio : 1 / ratio;
    return `${s.name}: ${faster} (${factor.toFixed(2)}x)`;
  });
  console.log(`Faster adapter per scenario — ${verdicts.join('; ')}`);
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const adapter of ADAPTERS) rows.push(...(await measure(adapter)));
  printTable(rows);
}

const serveIndex = process.argv.indexOf('--serve');
if (serveIndex !== -1) {
  serve(process.argv[serveIndex + 1] as AdapterName).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(`bench aborted: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
