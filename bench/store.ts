/**
 * `npm run bench:store -- --rows 1000000 [--runs 20] [--port 27999] [--loads-only]`
 * The embedded store (tools/embedded-mongo) as the stack runs it: its own process, a data
 * directory (journal + checkpoints), the driver as client. Prints, in one run:
 * - insert throughput into a collection with the line items' indexes next to one with only `_id`
 *   (each load in a store process of its own, started empty, both loaded to N rows), for the first
 *   200,000 rows, the rest and the whole (`--loads-only` stops there);
 * - a keyset page, a filtered count and a one-period aggregation over N line items, each next to
 *   the same operation forced to scan (`hint: {$natural: 1}`);
 * - short point reads (`_id` lookups) timed while heavy aggregations and scans run on other
 *   connections, with the store yielding between slices of work (its default) next to the same
 *   load with yields disabled (`internalQueryExecYieldPeriodMS` huge: the old synchronous store);
 * - memory per document and the time a restart takes to recover everything.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { CostLineItemSchema } from '../apps/costasset/src/line-items/schemas/cost-line-item.schema';
import { mongoNodeOptions } from '../tools/stack/components/mongo';
import { pointReadsUnderLoad, type ConcurrencyRun, type HeavyOperation } from './support/concurrency';
import { lineItem, PERIODS } from './support/line-items';
import { numberArg, summarize } from './support/stats';

const root = path.join(__dirname, '..');
const BATCH = 10_000;

interface Store {
  child: ChildProcess;
  uri: string;
  /** Milliseconds from spawn to the listening line (recovery included). */
  startMs: number;
}

/** The V8 options of the stack's store, or only its heap size (V8's defaults otherwise, as the stack ran the store before them). */
function storeNodeOptions(stackOptions: boolean): string[] {
  const options = mongoNodeOptions();
  return stackOptions ? options : options.filter((option) => option.startsWith('--max-old-space-size='));
}

function startStore(dataDir: string, port: number, storeRoot = root, stackOptions = true): Promise<Store> {
  const started = performance.now();
  // BENCH_STORE_NODE_ARGS: extra node flags for the store processes (profiling: --cpu-prof, --trace-gc).
  const extra = (process.env.BENCH_STORE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [
      ...storeNodeOptions(stackOptions),
      ...extra,
      '--import',
      'tsx',
      'tools/embedded-mongo/cli.ts',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
    ],
    {
      cwd: storeRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`  [store] ${chunk.toString()}`));
  return new Promise((resolve, reject) => {
    let output = '';
    const listening = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (mongodb:\/\/[\d.]+:\d+)/.exec(output);
      if (!match) return;
      child.stdout?.off('data', listening);
      // Anything it prints later (e.g. --trace-gc lines) goes to stderr with the store's prefix.
      child.stdout?.on('data', (more: Buffer) => process.stderr.write(`  [store] ${more.toString()}`));
      resolve({ child, uri: match[1], startMs: performance.now() - started });
    };
    child.stdout?.on('data', listening);
    child.once('exit', (code) => reject(new Error(`the store exited with ${code}`)));
  });
}

async function stopStore(store: Store): Promise<void> {
  const exited = new Promise((resolve) => store.child.once('exit', resolve));
  store.child.kill('SIGTERM');
  await exited;
}

function residentMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** CPU time (user + system) the process has used, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface LoadRate {
  rows: number;
  rowsPerSecond: number;
  /** The store process's CPU time per row: less sensitive than wall time to other work on the machine. */
  storeCpuUsPerRow: number;
}

async function load(collection: Collection, rows: number, storePid: number, from = 0): Promise<LoadRate> {
  const started = performance.now();
  const cpuBefore = cpuMs(storePid);
  for (let offset = from; offset < from + rows; offset += BATCH) {
    const size = Math.min(BATCH, from + rows - offset);
    await collection.insertMany(
      Array.from({ length: size }, (_, k) => lineItem(offset + k)),
      { ordered: false },
    );
  }
  return {
    rows,
    rowsPerSecond: rows / ((performance.now() - started) / 1000),
    storeCpuUsPerRow: ((cpuMs(storePid) - cpuBefore) * 1000) / rows,
  };
}

/** The rates of a load of `rows` rows: its first `split` rows, the rest, and the whole. */
interface SegmentedLoad {
  first: LoadRate;
  rest: LoadRate | null;
  whole: LoadRate;
}

async function segmentedLoad(collection: Collection, rows: number, split: number, storePid: number): Promise<SegmentedLoad> {
  const first = await load(collection, Math.min(rows, split), storePid);
  const rest = rows > split ? await load(collection, rows - split, storePid, split) : null;
  if (!rest) return { first, rest, whole: first };
  const seconds = first.rows / first.rowsPerSecond + rest.rows / rest.rowsPerSecond;
  const cpuUs = first.rows * first.storeCpuUsPerRow + rest.rows * rest.storeCpuUsPerRow;
  return { first, rest, whole: { rows, rowsPerSecond: rows / seconds, storeCpuUsPerRow: cpuUs / rows } };
}

/** A load of `rows` rows into a collection with only `_id`, in a fresh store of its own (loaded to the same size). */
async function baselineLoad(port: number, rows: number, split: number, storeRoot = root, stackOptions = true): Promise<SegmentedLoad> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-baseline-'));
  const store = await startStore(dataDir, port, storeRoot, stackOptions);
  const client = await MongoClient.connect(store.uri);
  try {
    return await segmentedLoad(client.db('bench_store').collection('only_id'), rows, split, store.child.pid ?? 0);
  } finally {
    await client.close();
    await stopStore(store);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function time(runs: number, operation: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  // Warm-up (plan cache, JIT) is not measured, as it would not be in a running service.
  for (let run = 0; run < 3; run++) await operation();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await operation();
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

const ms = (value: number): string => (value < 10 ? value.toFixed(1) : value.toFixed(0));

/** Heavy operations over every line item: an index walk fetching all of them, and a collection scan. */
const HEAVY: HeavyOperation[] = [
  {
    name: 'aggregation of every line item by provider and period',
    run: (collection) =>
      collection
        .aggregate([
          { $match: { tenantId: 'default' } },
          { $group: { _id: { provider: '$providerName', period: '$period' }, cost: { $sum: '$cost' }, rows: { $sum: 1 } } },
        ])
        .toArray(),
  },
  { name: 'count of a non-indexed condition (collection scan)', run: (collection) => collection.countDocuments({ cost: { $gte: 50 } }) },
];

const UNLIMITED_SLICE_MS = 2_147_483_647;

async function concurrencyLines(
  client: MongoClient,
  uri: string,
  indexed: Collection,
  heavyClients: number,
  seconds: number,
): Promise<string[]> {
  const sample = await indexed
    .find({ tenantId: 'default', period: PERIODS[3] }, { projection: { _id: 1 } })
    .limit(1000)
    .toArray();
  const ids = sample.map((doc) => doc._id);
  const admin = client.db('admin');
  const { internalQueryExecYieldPeriodMS: slice } = await admin.command({ getParameter: 1, internalQueryExecYieldPeriodMS: 1 });
  const run = (): Promise<ConcurrencyRun> =>
    pointReadsUnderLoad(uri, indexed.dbName, indexed.collectionName, ids, HEAVY, heavyClients, seconds);
  await admin.command({ setParameter: 1, internalQueryExecYieldPeriodMS: UNLIMITED_SLICE_MS });
  const synchronous = await run();
  await admin.command({ setParameter: 1, internalQueryExecYieldPeriodMS: slice });
  const cooperative = await run();
  const reads = (r: ConcurrencyRun): string =>
    `p50 ${ms(r.reads.p50)} ms, p99 ${ms(r.reads.p99)} ms, max ${ms(r.reads.max)} ms (${r.reads.count.toLocaleString()} reads)`;
  const heavy = (r: ConcurrencyRun): string => `${r.heavy.count} heavy operations done, mean ${ms(r.heavy.meanMs)} ms`;
  return [
    `| point reads by \`_id\` while ${heavyClients} connections run heavy operations ` +
      `(${seconds} s each way) | ${reads(cooperative)} | synchronous store: ` +
      `${reads(synchronous)} | ${(synchronous.reads.p99 / cooperative.reads.p99).toFixed(0)}x lower p99 |`,
    `| the heavy operations meanwhile (${HEAVY.map((operation) => operation.name).join('; ')}) ` +
      `| ${heavy(cooperative)} | synchronous store: ${heavy(synchronous)} | |`,
  ];
}

async function main(): Promise<void> {
  const rows = numberArg('rows', 1_000_000);
  const runs = numberArg('runs', 20);
  const scanRuns = Math.max(3, Math.round(runs / 4));
  const port = numberArg('port', Number(process.env.BENCH_STORE_PORT ?? 27999));
  const heavyClients = numberArg('heavy', 4);
  const concurrencySeconds = numberArg('concurrency-seconds', 15);
  const split = Math.min(rows, 200_000);
  // The baseline runs in a store of its own, started empty like the one measured with indexes and
  // loaded to the same size, so neither load pays for the other's documents (heap, garbage
  // collections, checkpoints) and each segment is compared with the same segment.
  const idLoad = await baselineLoad(port, rows, split);
  // BENCH_STORE_PREVIOUS_ROOT: a checkout of an earlier version of the store (its
  // tools/embedded-mongo, with node_modules), whose `_id`-only load is printed too.
  const previousRoot = process.env.BENCH_STORE_PREVIOUS_ROOT;
  // BENCH_STORE_PREVIOUS_V8_DEFAULTS=1: the earlier version runs with only the heap size set, as
  // the stack ran it before the store's V8 options (by default it gets the same options as now).
  const previousLoad = previousRoot
    ? await baselineLoad(port, rows, split, previousRoot, process.env.BENCH_STORE_PREVIOUS_V8_DEFAULTS !== '1')
    : null;
  const previousLabel = process.env.BENCH_STORE_PREVIOUS_LABEL ?? previousRoot;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'));
  let store = await startStore(dataDir, port);
  let client = await MongoClient.connect(store.uri);
  const lines: string[] = [];
  try {
    const db = client.db('bench_store');
    // The line items' indexes exactly as the schema declares them (what the services create).
    const indexed = db.collection('cost_line_items');
    const specs = CostLineItemSchema.indexes().map(([key, options]) => {
      const { background: _ignored, ...rest } = options as Document;
      return { key: key as Document, ...rest };
    });
    await indexed.createIndexes(specs as never);
    const indexedLoad = await segmentedLoad(indexed, rows, split, store.child.pid ?? 0);
    const rss = residentMb(store.child.pid ?? 0);
    const rate = (r: LoadRate): string =>
      `${Math.round(r.rowsPerSecond).toLocaleString()} rows/s (store CPU ${Math.round(r.storeCpuUsPerRow)} µs/row)`;
    const share = (r: LoadRate, baseline: LoadRate): string =>
      `${((100 * r.rowsPerSecond) / baseline.rowsPerSecond).toFixed(0)} % (by store CPU: ` +
      `${((100 * baseline.storeCpuUsPerRow) / r.storeCpuUsPerRow).toFixed(0)} %)`;
    const segments: Array<[string, (l: SegmentedLoad) => LoadRate | null]> = [
      [`rows 0 to ${split.toLocaleString()}`, (l) => l.first],
      [`rows ${split.toLocaleString()} to ${rows.toLocaleString()}`, (l) => l.rest],
      [`all ${rows.toLocaleString()} rows`, (l) => (l.rest ? l.whole : null)],
    ];
    for (const [label, pick] of segments) {
      const baseline = pick(idLoad);
      const measured = pick(indexedLoad);
      if (!baseline || !measured) continue;
      lines.push(
        `| insert, ${label}, ${specs.length} line-item indexes | ${rate(measured)} ` +
          `| only \`_id\`: ${rate(baseline)} | ${share(measured, baseline)} |`,
      );
      const previous = previousLoad ? pick(previousLoad) : null;
      if (previous)
        lines.push(
          `| insert, ${label}, only \`_id\`, store of ${previousLabel} | | ` +
            `${rate(previous)} | indexed load above: ${share(measured, previous)} |`,
        );
    }
    if (process.argv.includes('--loads-only')) {
      console.log(`\nbench:store, loads only, ${rows.toLocaleString()} line items, ${new Date().toISOString()}\n`);
      console.log('| operation | store | baseline | ratio |\n|---|---|---|---|');
      console.log(lines.join('\n'));
      return;
    }

    // Let the store finish collecting the garbage of the load before timing reads.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const period = PERIODS[5];
    const natural = { $natural: 1 } as const;
    const [middle] = await indexed
      .find({}, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .skip(Math.floor(rows / 2))
      .limit(1)
      .toArray();
    const pageFilter = { tenantId: 'default', providerName: 'aws', _id: { $gt: middle._id } };
    const page = await time(runs, () => indexed.find(pageFilter).sort({ _id: 1 }).limit(101).toArray());
    const pageScan = await time(scanRuns, () => indexed.find(pageFilter).sort({ _id: 1 }).limit(101).hint(natural).toArray());
    const countFilter = { tenantId: 'default', period };
    const counted = await indexed.countDocuments(countFilter);
    const count = await time(runs, () => indexed.countDocuments(countFilter));
    const countScan = await time(scanRuns, () => indexed.countDocuments(countFilter, { hint: natural }));
    const pipeline = [
      { $match: { tenantId: 'default', period } },
      { $group: { _id: '$providerName', cost: { $sum: '$cost' }, rows: { $sum: 1 } } },
    ];
    const aggregate = await time(runs, () => indexed.aggregate(pipeline).toArray());
    const aggregateScan = await time(scanRuns, () => indexed.aggregate(pipeline, { hint: natural }).toArray());
    const plan = await indexed.find(pageFilter).sort({ _id: 1 }).limit(101).explain('executionStats');
    const speedup = (planned: { p50: number }, scanned: { p50: number }): string => `${(scanned.p50 / planned.p50).toFixed(1)}x`;
    lines.push(
      `| keyset page of 100 (\`providerName\` filter, after the middle \`_id\`) | p50 ${ms(page.p50)} ms, ` +
        `p95 ${ms(page.p95)} ms | scan p50 ${ms(pageScan.p50)} ms | ${speedup(page, pageScan)} |`,
    );
    lines.push(
      `| count of one period (${counted.toLocaleString()} rows) | p50 ${ms(count.p50)} ms, ` +
        `p95 ${ms(count.p95)} ms | scan p50 ${ms(countScan.p50)} ms | ${speedup(count, countScan)} |`,
    );
    lines.push(
      `| aggregation \`$match\` one period + \`$group\` by provider | p50 ${ms(aggregate.p50)} ms, ` +
        `p95 ${ms(aggregate.p95)} ms | scan p50 ${ms(aggregateScan.p50)} ms | ${speedup(aggregate, aggregateScan)} |`,
    );
    const winning = JSON.stringify(plan.queryPlanner.winningPlan).match(/"indexName":"[^"]+"/)?.[0] ?? 'COLLSCAN';
    lines.push(...(await concurrencyLines(client, store.uri, indexed, heavyClients, concurrencySeconds)));
    lines.push(
      `| memory (resident, store process) | ${Math.round(rss).toLocaleString()} MB for ` +
        `${rows.toLocaleString()} rows | ${Math.round((rss * 1024 * 1024) / rows).toLocaleString()} bytes/row | |`,
    );
    await client.close();
    await stopStore(store);
    const files = fs.readdirSync(dataDir);
    const diskMb = files.reduce((sum, name) => sum + fs.statSync(path.join(dataDir, name)).size, 0) / 1024 / 1024;
    const checkpoints = files.filter((name) => name.endsWith('.ckpt')).length;
    const journalSegments = files.filter((name) => name.endsWith('.log')).length;
    store = await startStore(dataDir, port);
    client = await MongoClient.connect(store.uri);
    const recovered = await client.db('bench_store').collection('cost_line_items').estimatedDocumentCount();
    lines.push(
      `| restart: recovery of ${recovered.toLocaleString()} rows (${checkpoints} checkpoint, ` +
        `${journalSegments} journal segments replayed, indexes rebuilt) ` +
        `| ${(store.startMs / 1000).toFixed(1)} s | data directory ${Math.round(diskMb).toLocaleString()} MB | |`,
    );
    console.log(
      `\nbench:store, ${rows.toLocaleString()} line items, ${runs} runs (scans ${scanRuns}), ` +
        `${new Date().toISOString().slice(0, 10)}; page plan uses ${winning}\n`,
    );
    console.log('| operation | store | forced scan / baseline | ratio |\n|---|---|---|---|');
    console.log(lines.join('\n'));
  } finally {
    await client.close().catch(() => undefined);
    await stopStore(store).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(`bench:store: ${error.message}`);
  process.exit(1);
});
