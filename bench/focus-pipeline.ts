/**
 * `npm run bench:focus-pipeline -- [--rows 200000] [--formats parquet,csv.gz] [--stages library,reader,map,scope,rollup,driver]
 *   [--loop rows,batches] [--bson encoded|driver|serialize]`
 * The FOCUS import's own per-row work without the database or the services (issue 22): a generated
 * file (tools/focus, as bench:focus makes it) is read through the reader the import job uses
 * (openFocusFile, over a local stand-in of the object store client), then each stage adds the next
 * piece of the job's loop (FocusLoader.load), and prints rows/s and the share of garbage collection:
 *   library  the bare parse (gunzip + csv-parse arrays; hyparquet by slices of 10,000 rows), as bench:focus's baseline
 *   reader   openFocusFile's rows: what the job iterates (row objects keyed by the header)
 *   map      + providerOfRow, the provider gate, readCostRow and IngestReport.record
 *   scope    + the visibility check, the (provider, account, period) scopes and BatchWriter (writing nothing)
 *   rollup   + LoadTracker.add per line item (the rollup sums), touch and progress: the job's whole loop
 *   driver   + what TenantRepository's InsertBatch and the driver do in this process before the database sees a byte
 *            (the tenant stamped, an _id, the BSON encoding): the part of the job's databaseMs spent on this
 *            process's CPU. `--bson encoded` (default): the line-item repositories' own encoder (InsertBatch: a document as it is added);
 *            `--bson driver`: what insertMany does (calculateObjectSize, then bson's serialize, per document);
 *            `--bson serialize`: bson's serialize alone (this stage before 2026-11-27 21:30)
 * Each stage runs with the job's loop as it is (`rows`: row objects, one per promise) and with the loop
 * proposed for it (`batches`: row arrays by chunk or row-group slice, costRowReader, ImportScopes, `add`
 * awaited only when it flushes); `driver` stamps the tenant in place in `batches` as InsertBatch does (a copy
 * per document in `rows`, as it did).
 * The stand-in reads the local file; it counts range reads (an HTTP request each against the object store).
 * Profile one stage (--dir keeps the files, so that the profiled run generates none):
 *   npm run bench:focus-pipeline -- --dir /tmp/focus-files --stages library
 *   node --cpu-prof --cpu-prof-dir /tmp/prof -r ./test/support/swc-register.js bench/focus-pipeline.ts --dir /tmp/focus-files \
 *     --stages rollup
 * (through swc-register, a profile's lines are the source's; tsx puts each file on one line)
 */
import { AllocationModel } from '../apps/costasset/src/allocation/allocation-model';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { calculateObjectSize, ObjectId, serialize } from 'bson';
import { parse } from 'csv-parse';
import { parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import type { AsyncBuffer } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { Client } from 'minio';
import { BatchWriter } from '../apps/costasset/src/imports/write/batch-writer';
import { FOCUS_REQUIRED_VALUES } from '../apps/costasset/src/imports/focus-loader';
import { openFocusFile } from '../apps/costasset/src/imports/read/focus-file-reader';
import { ImportVisibility } from '../apps/costasset/src/uploads/import-visibility';
import { costRowReader, missingRequiredColumns, planHeader, providerOfCells } from '../apps/costasset/src/imports/map/cost-row';
import { ImportScopes } from '../apps/costasset/src/imports/write/import-scopes';
import { detectVersion, FocusVersion } from '../apps/costasset/src/imports/map/focus-columns';
import { IngestReport, problem } from '../apps/costasset/src/imports/report/ingest-report';
import type { ProviderMetadataSnapshot } from '../apps/costasset/src/provider-metadata/provider-metadata.lookup';
import { LoadTracker } from '../apps/costasset/src/rollups/rollups.service';
import type { RollupKeyRepository } from '../apps/costasset/src/rollups/rollups.repository';
import { FocusFileFormat, generateFocus } from '../tools/focus/generate';
import { InsertBatch } from '@lib/persistence';
import { numberArg } from './support/stats';

const STAGES = ['library', 'reader', 'map', 'scope', 'rollup', 'driver'] as const;
type Stage = (typeof STAGES)[number];
const PROGRESS_ROWS = 10_000;
const BSON_WAYS = ['encoded', 'driver', 'serialize'] as const;
const BATCH_SIZE = 5_000;

function listArg<T extends string>(name: string, fallback: readonly T[], allowed: readonly T[]): T[] {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return [...fallback];
  const values = process.argv[index + 1].split(',') as T[];
  const wrong = values.filter((value) => !allowed.includes(value));
  if (wrong.length) throw new Error(`--${name} takes ${allowed.join(', ')}; not ${wrong.join(', ')}`);
  return values;
}

/** The two calls of the minio Client the readers make, served from a local file; counts the range reads. */
class LocalStore {
  ranges = 0;
  rangeBytes = 0;

  constructor(private readonly file: string) {}

  getObject(): Promise<Readable> {
    return Promise.resolve(createReadStream(this.file));
  }

  getPartialObject(_bucket: string, _key: string, offset: number, length: number): Promise<Readable> {
    this.ranges++;
    this.rangeBytes += length;
    return Promise.resolve(createReadStream(this.file, { start: offset, end: offset + length - 1 }));
  }

  asClient(): Client {
    return this as unknown as Client;
  }
}

async function fileBuffer(path: string): Promise<AsyncBuffer & { close(): Promise<void> }> {
  const handle = await open(path);
  const size = statSync(path).size;
  return {
    close: () => handle.close(),
    byteLength: size,
    async slice(start: number, end?: number) {
      const length = (end ?? size) - start;
      const bytes = Buffer.alloc(length);
      for (let done = 0; done < length;) {
        const { bytesRead } = await handle.read(bytes, done, length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + length) as ArrayBuffer;
    },
  };
}

/** bench:focus's baseline: the libraries alone. */
async function libraryParse(file: string, format: FocusFileFormat): Promise<number> {
  let rows = 0;
  if (format === 'parquet') {
    const buffer = await fileBuffer(file);
    const metadata = await parquetMetadataAsync(buffer);
    let start = 0;
    for (const group of metadata.row_groups) {
      const end = start + Number(group.num_rows);
      for (let slice = start; slice < end; slice += 10_000) {
        const rowEnd = Math.min(end, slice + 10_000);
        rows += (await parquetReadObjects({ file: buffer, metadata, rowStart: slice, rowEnd, compressors, useOffsetIndex: true })).length;
      }
      start = end;
    }
    await buffer.close();
  } else {
    for await (const _record of createReadStream(file)
      .pipe(createGunzip())
      .pipe(parse({ bom: true, from_line: 2 })))
      rows++;
  }
  return rows;
}

/**
 * openFocusFile with the CSV path proposed for imports/read/focus-file-reader.ts (openFocusCsv, whose
 * `batches` are the record arrays); Parquet through openFocusFile itself (its `batches` are there).
 */
interface StageResult {
  rows: number;
  written: number;
  rejected: number;
  scopes: number;
  rollupGroups: number;
  bsonBytes: number;
}

const EMPTY_METADATA: ProviderMetadataSnapshot = { categoriesByAssetType: new Map(), locationsByRegion: new Map() };

/** The job's loop (FocusLoader.load) up to `stage`, with the database and the services stubbed out. */
async function pipeline(
  file: string,
  format: FocusFileFormat,
  stage: Stage,
  store: LocalStore,
  bson: (typeof BSON_WAYS)[number] = 'encoded',
): Promise<StageResult> {
  const size = statSync(file).size;
  const opened = await openFocusFile(store.asClient(), 'bench', 'focus', size, `focus.${format}`, format, 1024 ** 3);
  const result: StageResult = { rows: 0, written: 0, rejected: 0, scopes: 0, rollupGroups: 0, bsonBytes: 0 };
  if (stage === 'reader') {
    for await (const batch of opened.batches) result.rows += batch.rows.length;
    return result;
  }
  const at = STAGES.indexOf(stage);
  const withScopes = at >= STAGES.indexOf('scope');
  const withRollups = at >= STAGES.indexOf('rollup');
  const withDriver = at >= STAGES.indexOf('driver');
  const version: FocusVersion = detectVersion(opened.header);
  const plan = planHeader(opened.header, version);
  const missing = missingRequiredColumns(plan, FOCUS_REQUIRED_VALUES);
  if (missing.length) throw new Error(`missing required column(s): ${missing.join(', ')}`);
  const report = new IngestReport();
  // the stale mark's generation: one bump per touch, as if the load were the upload's only writer
  let generation = 0;
  const keys = { bump: () => Promise.resolve(++generation) } as unknown as RollupKeyRepository;
  let groups = 0;
  const rollups = new LoadTracker(
    'default',
    'bench',
    keys,
    async () => AllocationModel.EMPTY,
    ({ daily }) => {
      groups = daily.length;
      return Promise.resolve();
    },
    () => Promise.resolve(),
  );
  await rollups.touch();
  const progress = () => Promise.resolve();
  // what TenantRepository's bulkBatch, insertBatch and the driver do in this process before the database sees a byte
  const encodes = withDriver && bson === 'encoded';
  const target = {
    bulkBatch: (tenantId: string, expected: number) => new InsertBatch(tenantId, encodes, expected),
    insertBatch: (batch: InsertBatch): Promise<number> => {
      if (encodes) for (const bytes of batch.encoded.views()) result.bsonBytes += bytes.length;
      else if (withDriver)
        for (const doc of batch.objects as Record<string, unknown>[]) {
          doc._id ??= new ObjectId();
          if (bson === 'driver') calculateObjectSize(doc, { ignoreUndefined: false });
          result.bsonBytes += serialize(doc).length;
        }
      return Promise.resolve(batch.length);
    },
  };
  const writer = new BatchWriter(
    'default',
    BATCH_SIZE,
    { cost: target, asset: target, utilization: target },
    async (written, kind, sent) => {
      report.rowsWritten += written;
      if (withRollups) {
        if (kind === 'cost') rollups.stored(sent, written);
        await rollups.touch();
      }
      await progress();
    },
  );
  const rates: Record<string, number> = { USD: 1, EUR: 1.1 };
  const ctx = {
    uploadRefId: 'bench',
    conversion: { corporateCurrency: 'USD', rateOf: (currency: string) => rates[currency] },
    metadataOf: () => EMPTY_METADATA,
    required: FOCUS_REQUIRED_VALUES,
    conformance: true,
    focusVersion: version,
    sourceFile: `focus.${format}`,
  };
  // the job's ProviderCache: an async lookup per row, answered from a map after the first row of a provider
  const refusals = new Map<string, string | undefined>();
  const prepare = (provider: string): Promise<string | undefined> => {
    if (!refusals.has(provider)) refusals.set(provider, undefined);
    return Promise.resolve(refusals.get(provider));
  };
  const visibility = new ImportVisibility(null);
  const name = ctx.sourceFile;
  let scopeCount = 0;
  // the loop proposed for FocusLoader.load (issue 22): row arrays in batches, the compiled
  // reader, the scopes counted by ImportScopes, the provider gate synchronous once the provider is
  // known, and `add` awaited only when it flushes
  const scopes = new ImportScopes();
  const readRow = costRowReader(plan);
  for await (const { rows, lines, problems } of opened.batches) {
    for (let index = 0; index < rows.length; index++) {
      const cells = rows[index];
      const line = lines[index];
      report.rowsRead++;
      if (report.rowsRead % PROGRESS_ROWS === 0) await progress();
      const fieldProblem = problems?.[index];
      if (fieldProblem !== undefined) {
        report.record(name, line, [problem('FIELD_COUNT_MISMATCH', fieldProblem)]);
        continue;
      }
      const provider = providerOfCells(cells, plan);
      const refusal = provider ? (refusals.has(provider) ? refusals.get(provider) : await prepare(provider)) : undefined;
      if (refusal) continue;
      const read = readRow(cells, line, ctx);
      if (report.record(name, line, read.problems, read.id) || !read.doc) continue;
      if (!withScopes) continue;
      if (!visibility.admits(read.doc)) continue;
      scopes.count(read.doc.providerName, read.doc.billingAccountId, read.doc.billingPeriod);
      if (withRollups) rollups.add(read.doc);
      const flushing = writer.add('cost', read.doc);
      if (flushing) await flushing;
    }
  }
  scopeCount = scopes.size;
  await writer.flushAll();
  if (withRollups) await rollups.finish();
  return {
    ...result,
    rows: report.rowsRead,
    written: report.rowsWritten,
    rejected: report.rowsRejected,
    scopes: scopeCount,
    rollupGroups: groups,
  };
}

/** Milliseconds of garbage collection (all kinds) since the process started watching. */
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

async function main(): Promise<void> {
  const rows = numberArg('rows', 200_000);
  const repeat = numberArg('repeat', 2);
  const formats = listArg<FocusFileFormat>('formats', ['parquet', 'csv.gz'], ['parquet', 'csv.gz', 'csv']);
  const stages = listArg<Stage>('stages', STAGES, STAGES);
  const [bson] = listArg('bson', ['encoded'], BSON_WAYS);
  // --dir keeps the generated files (and reuses them): a profile of a second run holds no generation
  const dirIndex = process.argv.indexOf('--dir');
  const kept = dirIndex >= 0 ? process.argv[dirIndex + 1] : undefined;
  if (kept) mkdirSync(kept, { recursive: true });
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'bench-focus-pipeline-'));
  const table: string[] = [];
  try {
    for (const format of formats) {
      const file = join(dir, `focus-${rows}.${format}`);
      if (!kept || !existsSync(file))
        await generateFocus({
          version: '1.2',
          format,
          compression: 'zstd',
          rows,
          providers: ['aws', 'azure', 'oci', 'gcp'],
          periods: ['202409', '202410', '202411'],
          out: file,
        });
      console.log(`${format}: ${rows.toLocaleString()} rows, ${(statSync(file).size / 1e6).toFixed(1)} MB`);
      for (const stage of stages) {
        let best = Number.POSITIVE_INFINITY;
        let gcShare = 0;
        let last: StageResult | undefined;
        let store = new LocalStore(file);
        for (let run = 0; run < repeat; run++) {
          store = new LocalStore(file);
          const gcBefore = gcMs;
          const started = performance.now();
          last =
            stage === 'library'
              ? { rows: await libraryParse(file, format), written: 0, rejected: 0, scopes: 0, rollupGroups: 0, bsonBytes: 0 }
              : await pipeline(file, format, stage, store, bson);
          const seconds = (performance.now() - started) / 1000;
          // the GC share of the best run (observer entries arrive asynchronously: let them come)
          await new Promise((resolve) => setImmediate(resolve));
          if (seconds < best) gcShare = (gcMs - gcBefore) / 1000 / seconds;
          best = Math.min(best, seconds);
        }
        const done = last as StageResult;
        const rate = Math.round(done.rows / best);
        const details =
          stage === 'library'
            ? ''
            : `range reads ${store.ranges}` +
              (stage === 'reader' ? '' : `, written ${done.written}, rejected ${done.rejected}`) +
              (done.scopes ? `, scopes ${done.scopes}` : '') +
              (done.rollupGroups ? `, rollup groups ${done.rollupGroups}` : '') +
              (done.bsonBytes ? `, BSON ${(done.bsonBytes / done.written).toFixed(0)} B/doc` : '');
        const cells = [
          format,
          stage,
          done.rows.toLocaleString(),
          best.toFixed(2),
          rate.toLocaleString(),
          `${(gcShare * 100).toFixed(0)}%`,
          details,
        ];
        const line = `| ${cells.join(' | ')} |`;
        console.log(line);
        table.push(line);
      }
    }
    console.log('\n| format | stage | rows | s | rows/s | GC share | notes |');
    console.log('|---|---|---|---|---|---|---|');
    for (const line of table) console.log(line);
  } finally {
    if (!kept) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(`bench:focus-pipeline: ${error.stack ?? error.message}`);
  process.exit(1);
});
