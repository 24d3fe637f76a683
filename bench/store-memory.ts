/**
 * `npm run bench:store-memory -- --rows 250000 [--batch 1000] [--port 27998]`
 * What FOCUS line items cost the embedded store (tools/embedded-mongo) in memory: the store runs
 * as the stack runs it (its own process, its V8 options, a data directory), the line items are
 * the FOCUS import's documents (tools/focus rows read by the import's own cost-row rules) and go
 * in through the driver's insertMany in batches, into a collection with the indexes the line-item
 * schema declares. Prints:
 * - resident bytes per line item: the store's RSS after the load (once it has been idle a few
 *   seconds) minus its RSS before, divided by the rows;
 * - the insert rate (rows/s, and the store's CPU per row);
 * - the rate of a `deleteMany` of one replaced billing period (one provider's account and month);
 * - the store's RSS after dropping the database, next to its RSS before the load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient, type Document } from 'mongodb';
import { planHeader, readCostRow, type CostRowContext } from '../apps/costasset/src/imports/map/cost-row';
import type { CellRow } from '../apps/costasset/src/imports/map/cells';
import { CostLineItemSchema } from '../apps/costasset/src/line-items/schemas/cost-line-item.schema';
import { focusRow, headerOf, type RowOptions } from '../tools/focus/focus-rows';
import { mongoNodeOptions } from '../tools/stack/components/mongo';
import { numberArg } from './support/stats';

// BENCH_STORE_ROOT: a checkout of another version of the store (its tools/embedded-mongo, with node_modules) to measure instead.
const root = process.env.BENCH_STORE_ROOT ?? path.join(__dirname, '..');
const PERIODS = Array.from({ length: 12 }, (_, i) => `2024${String(i + 1).padStart(2, '0')}`);
const PROVIDERS = ['aws', 'azure', 'oci', 'gcp'];
const SETTLE_MS = 10_000;

interface StoreProcess {
  child: ChildProcess;
  uri: string;
}

function startStore(dataDir: string, port: number): Promise<StoreProcess> {
  const extra = (process.env.BENCH_STORE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [
    ...mongoNodeOptions(),
    ...extra,
    '--import',
    'tsx',
    'tools/embedded-mongo/cli.ts',
    '--port',
    String(port),
    '--data-dir',
    dataDir,
  ];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`  [store] ${chunk.toString()}`));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (mongodb:\/\/[\d.]+:\d+)/.exec(output);
      if (match) resolve({ child, uri: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`the store exited with ${code}`)));
  });
}

async function stopStore(store: StoreProcess): Promise<void> {
  if (store.child.exitCode !== null) return;
  const exited = new Promise((resolve) => store.child.once('exit', resolve));
  store.child.kill('SIGTERM');
  await exited;
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

const residentBytes = (pid: number): number => statusKb(pid, 'VmRSS') * 1024;

/** CPU time (user + system) the process has used, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The upload of one billing period (an ObjectId-like ref, as the import writes). */
const uploadRefOf = (billingPeriod: string): string => `6650c0ffee${billingPeriod}00000000`.padEnd(24, '0');

/** Line items as the FOCUS import makes them: FOCUS 1.2 rows of four providers read by its cost-row rules. */
class LineItems {
  private readonly plan = planHeader(headerOf('1.2'), '1.2');
  private readonly options: RowOptions;
  private readonly context: CostRowContext;

  constructor(rows: number) {
    this.options = { version: '1.2', providers: PROVIDERS, periods: PERIODS, rows };
    this.context = {
      uploadRefId: '',
      conversion: { rateOf: (currency: string) => (currency === 'EUR' ? 1.08 : 1), corporateCurrency: 'USD' } as never,
      metadataOf: () => ({ categoriesByAssetType: new Map(), locationsByRegion: new Map() }) as never,
      required: [],
      conformance: false,
      sourceFile: 'focus-1.2.csv.gz',
      focusVersion: '1.2',
    };
  }

  row(index: number): Document {
    const { doc } = readCostRow(focusRow(index, this.options) as CellRow, this.plan, index + 2, this.context);
    if (!doc) throw new Error(`row ${index} was rejected`);
    return { ...doc, tenantId: 'default', uploadRefId: uploadRefOf(doc.billingPeriod) };
  }

  batch(from: number, size: number): Document[] {
    return Array.from({ length: size }, (_, k) => this.row(from + k));
  }
}

const mb = (bytes: number): string => `${Math.round(bytes / 1024 / 1024).toLocaleString('en-US')} MB`;

async function main(): Promise<void> {
  const rows = numberArg('rows', 250_000);
  const batchSize = numberArg('batch', 1000);
  const port = numberArg('port', Number(process.env.BENCH_STORE_PORT ?? 27998));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-memory-'));
  const store = await startStore(dataDir, port);
  const pid = store.child.pid ?? 0;
  const client = await MongoClient.connect(store.uri);
  try {
    const db = client.db('bench_store_memory');
    const collection = db.collection('cost_line_items');
    const specs = CostLineItemSchema.indexes().map(([key, options]) => {
      const { background: _ignored, ...rest } = options as Document;
      return { key: key as Document, ...rest };
    });
    await collection.createIndexes(specs as never);
    const items = new LineItems(rows);
    const sampleBytes = JSON.stringify(items.batch(0, 1)).length;
    await sleep(2000);
    const before = residentBytes(pid);

    const started = performance.now();
    const cpuBefore = cpuMs(pid);
    let next = items.batch(0, Math.min(batchSize, rows));
    for (let offset = 0; offset < rows; offset += batchSize) {
      const inserting = collection.insertMany(next, { ordered: false });
      // The next batch is made while the store works on this one (the client's CPU is not the
      // store's), once the driver has sent this one.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      const following = offset + batchSize;
      next = following < rows ? items.batch(following, Math.min(batchSize, rows - following)) : [];
      await inserting;
    }
    const loadSeconds = (performance.now() - started) / 1000;
    const cpuPerRowUs = ((cpuMs(pid) - cpuBefore) * 1000) / rows;
    const loadedPeak = statusKb(pid, 'VmHWM') * 1024;
    await sleep(SETTLE_MS);
    const loaded = residentBytes(pid);

    const period = PERIODS[5];
    const scope = {
      tenantId: 'default',
      uploadRefId: uploadRefOf(period),
      providerName: 'AWS',
      billingAccountId: '123456789012',
      billingPeriod: period,
    };
    const deleteStarted = performance.now();
    const { deletedCount } = await collection.deleteMany(scope);
    const deleteSeconds = (performance.now() - deleteStarted) / 1000;
    const remaining = await collection.countDocuments({ tenantId: 'default' });

    await db.dropDatabase();
    await sleep(SETTLE_MS);
    const dropped = residentBytes(pid);

    const commit = process.env.BENCH_COMMIT ?? '';
    const count = (n: number): string => Math.round(n).toLocaleString('en-US');
    const date = new Date().toISOString().slice(0, 10);
    console.log(
      `\nbench:store-memory, ${count(rows)} FOCUS line items (JSON ~${sampleBytes} bytes each), ` +
        `insertMany batches of ${count(batchSize)}, ${specs.length + 1} indexes, ${date}${commit ? `, commit ${commit}` : ''}\n`,
    );
    const idle = `idle ${SETTLE_MS / 1000} s`;
    console.log('| measure | value |\n|---|---|');
    console.log(`| store RSS before the load | ${mb(before)} |`);
    console.log(`| store RSS after the load (${idle}) | ${mb(loaded)} (peak ${mb(loadedPeak)}) |`);
    console.log(`| resident bytes per line item | ${count((loaded - before) / rows)} |`);
    const storeCpu = `store CPU ${cpuPerRowUs.toFixed(1)} µs/row`;
    console.log(`| insert | ${count(rows / loadSeconds)} rows/s (${storeCpu}, ${loadSeconds.toFixed(1)} s) |`);
    const deleteMs = (deleteSeconds * 1000).toFixed(0);
    console.log(
      `| deleteMany of one replaced billing period | ${count(deletedCount)} rows in ${deleteMs} ms ` +
        `(${count(deletedCount / deleteSeconds)} rows/s; ${count(remaining)} left) |`,
    );
    console.log(`| store RSS after dropDatabase (${idle}) | ${mb(dropped)} (before the load: ${mb(before)}) |`);
  } finally {
    await client.close().catch(() => undefined);
    await stopStore(store).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(`bench:store-memory: ${error.stack ?? error.message}`);
  process.exit(1);
});
