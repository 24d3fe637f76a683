/**
 * `npm run bench:focus -- --rows 1000000 [--heap-mb 256] [--formats csv.gz,parquet] [--instances 2]`
 * Generates N FOCUS 1.2 rows (four providers) as CSV.gz and as Parquet (ZSTD) with tools/focus,
 * imports each end to end through the real services (create upload, pre-signed PUT, import job)
 * and prints rows/s, the time the job waited on the database apart, the job's rollup maintenance
 * (its `rollupMs`: mostly the rollup rows written once the rows are in), and the peak RSS of the
 * costasset process. Each format is also imported at a quarter of the rows in a fresh process, to
 * show whether memory grows with the row count. The embedded store's resident memory is measured
 * before and after each import (bytes per line item) and after the database is dropped. With
 * `--instances N`, the same number of Parquet rows cut into 8 parts (provider × billing period) is
 * imported by one instance as one job, by one instance part by part (FOCUS_PART_JOBS_MIN_PARTS) and
 * by N instances sharing the queue part by part, reported as ratios. Baseline, in the same run on the same files: a
 * bare streaming parse (gunzip + csv-parse; hyparquet by row group), nothing else.
 */
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { open } from 'node:fs/promises';
import { parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import type { AsyncBuffer } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { FocusFileFormat, generateFocus } from '../tools/focus/generate';
import { peakRssMb, putFile, rssMb, startServices, stopAndDropDatabase, waitForJob } from './support/services';
import { numberArg } from './support/stats';

interface Measured {
  rows: number;
  seconds: number;
  databaseSeconds: number;
  /** The job's rollup maintenance (`rollupMs`: sums while loading, then the rollup rows written once the rows are in). */
  rollupSeconds: number;
  /** The largest peak RSS of the costasset instances. */
  peakRssMb: number;
  /** The store's resident growth per line item written, in bytes (NaN with an external database). */
  storeBytesPerItem: number;
  /** The store's resident MB before the import, and once the benchmark's database was dropped. */
  storeBeforeMb: number;
  storeAfterDropMb: number;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function fileBuffer(path: string): Promise<AsyncBuffer & { close(): Promise<void> }> {
  const handle = await open(path);
  return {
    close: () => handle.close(),
    byteLength: statSync(path).size,
    async slice(start: number, end?: number) {
      const length = (end ?? statSync(path).size) - start;
      const bytes = Buffer.alloc(length);
      // a read may answer fewer bytes than asked: read until the range is complete
      for (let done = 0; done < length;) {
        const { bytesRead } = await handle.read(bytes, done, length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + length) as ArrayBuffer;
    },
  };
}

async function baselineParse(file: string, format: FocusFileFormat): Promise<{ rows: number; seconds: number }> {
  const started = performance.now();
  let rows = 0;
  if (format === 'parquet') {
    const buffer = await fileBuffer(file);
    const metadata = await parquetMetadataAsync(buffer);
    let start = 0;
    for (const group of metadata.row_groups) {
      const end = start + Number(group.num_rows);
      for (let slice = start; slice < end; slice += 10_000) {
        rows += (
          await parquetReadObjects({
            file: buffer,
            metadata,
            rowStart: slice,
            rowEnd: Math.min(end, slice + 10_000),
            compressors,
            useOffsetIndex: true,
          })
        ).length;
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
  return { rows, seconds: (performance.now() - started) / 1000 };
}

/** Imports the files as one upload (each a part) through `instances` costasset instances; `env` adds to theirs. */
async function ingest(files: string[], name: string, heapMb: number, instances = 1, env: Record<string, string> = {}): Promise<Measured> {
  const services = await startServices(
    'focus',
    { FOCUS_MAX_FILE_BYTES: String(4 * 1024 * 1024 * 1024), NODE_OPTIONS: `--max-old-space-size=${heapMb}`, ...env },
    instances,
  );
  const storeRss = () => (services.storePid ? rssMb(services.storePid) : Number.NaN);
  const storeBeforeMb = storeRss();
  let measured: Omit<Measured, 'storeAfterDropMb'> | undefined;
  try {
    const token = await services.token();
    const headers = { 'content-type': 'application/json', 'corelite-token': token };
    // Azure rows are billed in EUR: the tenant needs a rate into its USD corporate currency
    for (const [key, value] of [
      ['INSTANCE_CURRENCIES', ['USD', 'EUR']],
      ['CURRENCY_EXCHANGE_RATES', { EUR: 1.1 }],
      ['DEFAULT_CURRENCY', 'USD'],
    ] as const) {
      const answer = await fetch(`${services.authzUrl}/core/configuration/v1/configvalues`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ configurationkey: key, configurationvalue: value }),
      });
      if (!answer.ok) throw new Error(`configuration ${key} answered ${answer.status}`);
    }
    const api = (path: string, init: RequestInit = {}) => fetch(`${services.costassetUrl}${path}`, { headers, ...init });
    const created = (await (
      await api('/api/costasset/v1/focus/uploads', {
        method: 'POST',
        body: JSON.stringify({ files: files.map((_file, index) => ({ name: files.length > 1 ? `part-${index + 1}-${name}` : name })) }),
      })
    ).json()) as {
      uploadId: string;
      importPath: string;
      files: { uploadUrl: string }[];
    };
    for (const [index, file] of files.entries()) await putFile(created.files[index].uploadUrl, file);
    const started = performance.now();
    const { jobId } = (await (await api(created.importPath, { method: 'POST', body: '{}' })).json()) as { jobId: string };
    const job = await waitForJob<{ rowsWritten: number; databaseMs: number; rollupMs?: number }>(services, headers, jobId, 500);
    const seconds = (performance.now() - started) / 1000;
    const rows = job.result?.rowsWritten ?? 0;
    measured = {
      rows,
      seconds,
      databaseSeconds: (job.result?.databaseMs ?? 0) / 1000,
      rollupSeconds: (job.result?.rollupMs ?? Number.NaN) / 1000,
      peakRssMb: Math.max(...services.costassetPids.map(peakRssMb)),
      storeBytesPerItem: ((storeRss() - storeBeforeMb) * 1024 * 1024) / rows,
      storeBeforeMb,
    };
  } finally {
    await stopAndDropDatabase(services);
  }
  await settle(3000);
  return { ...measured, storeAfterDropMb: storeRss() };
}

function row(label: string, m: Measured, baselineRate: number): string {
  // parts imported at once wait on the database at once: their waits, summed, can pass the run's time
  const appSeconds = m.seconds - m.databaseSeconds;
  const appRate = appSeconds > 0 ? m.rows / appSeconds : Number.NaN;
  const withoutDatabase = Number.isNaN(appRate)
    ? '— | —'
    : `${Math.round(appRate).toLocaleString()} | ${((appRate / baselineRate) * 100).toFixed(0)}%`;
  return (
    `| ${label} | ${m.rows.toLocaleString()} | ${m.seconds.toFixed(1)} | ` +
    `${Math.round(m.rows / m.seconds).toLocaleString()} | ${m.databaseSeconds.toFixed(1)} | ${m.rollupSeconds.toFixed(1)} | ` +
    `${withoutDatabase} | ${m.peakRssMb.toFixed(0)} | ` +
    `${Math.round(m.storeBytesPerItem).toLocaleString()} | ${m.storeBeforeMb.toFixed(0)} → ${m.storeAfterDropMb.toFixed(0)} |`
  );
}

/**
 * The same rows as 8 parts (one per provider and billing period, as exports cut them): imported by
 * one instance as one job, by one instance part by part, and by `instances` instances part by part.
 */
async function spread(
  dir: string,
  format: FocusFileFormat,
  rows: number,
  heapMb: number,
  instances: number,
  baselineRate: number,
): Promise<string[]> {
  const parts: string[] = [];
  for (const provider of ['aws', 'azure', 'oci', 'gcp'])
    for (const period of ['202409', '202410']) {
      const out = join(dir, `part-${provider}-${period}.${format}`);
      await generateFocus({
        version: '1.2',
        format,
        compression: 'zstd',
        rows: Math.round(rows / 8),
        providers: [provider],
        periods: [period],
        out,
      });
      parts.push(out);
    }
  const name = `focus.${format}`;
  const runs: [string, Measured][] = [];
  for (const [label, count, env] of [
    [`${format} 8 parts, 1 instance, one job`, 1, { FOCUS_PART_JOBS_MIN_PARTS: '0' }],
    [`${format} 8 parts, 1 instance, part jobs`, 1, {}],
    [`${format} 8 parts, ${instances} instances, part jobs`, instances, {}],
  ] as const) {
    const measured = await ingest(parts, name, heapMb, count, env);
    console.log(row(label, measured, baselineRate));
    runs.push([label, measured]);
  }
  const rate = (measured: Measured) => measured.rows / measured.seconds;
  const [oneJob, onePart, spreadRun] = runs.map(([, measured]) => measured);
  return [
    ...runs.map(([label, measured]) => row(label, measured, baselineRate)),
    `| ${instances} instances vs 1 (part jobs both): ${(rate(spreadRun) / rate(onePart)).toFixed(2)}× end to end; ` +
      `part jobs vs one job on 1 instance: ${(rate(onePart) / rate(oneJob)).toFixed(2)}× | | | | | | | | | | |`,
  ];
}

async function main(): Promise<void> {
  const rows = numberArg('rows', 1_000_000);
  const heapMb = numberArg('heap-mb', 256);
  const instances = numberArg('instances', 2);
  const formatIndex = process.argv.indexOf('--formats');
  const formats = (formatIndex >= 0 ? process.argv[formatIndex + 1] : 'csv.gz,parquet').split(',') as FocusFileFormat[];
  const dir = mkdtempSync(join(tmpdir(), 'bench-focus-'));
  try {
    const lines: string[] = [];
    for (const format of formats) {
      const sizes = [Math.round(rows / 4), rows];
      const files = sizes.map((size) => join(dir, `focus-${size}.${format}`));
      for (const [at, size] of sizes.entries()) {
        await generateFocus({
          version: '1.2',
          format,
          compression: 'zstd',
          rows: size,
          providers: ['aws', 'azure', 'oci', 'gcp'],
          periods: ['202409', '202410', '202411'],
          out: files[at],
        });
      }
      const baseline = await baselineParse(files[1], format);
      const baselineRate = baseline.rows / baseline.seconds;
      console.log(
        `${format} baseline: bare streaming parse of ${baseline.rows.toLocaleString()} ` +
          `rows (${(statSync(files[1]).size / 1e6).toFixed(1)} MB): ` +
          `${baseline.seconds.toFixed(1)} s, ${Math.round(baselineRate).toLocaleString()} rows/s`,
      );
      const small = await ingest([files[0]], `focus.${format}`, heapMb);
      console.log(row(`${format} quarter`, small, baselineRate));
      const large = await ingest([files[1]], `focus.${format}`, heapMb);
      console.log(row(`${format} full`, large, baselineRate));
      lines.push(row(`${format} quarter`, small, baselineRate), row(`${format} full`, large, baselineRate));
      if (format === 'parquet' && instances > 1) lines.push(...(await spread(dir, format, rows, heapMb, instances, baselineRate)));
      lines.push(
        `| ${format}: peak RSS ${large.peakRssMb.toFixed(0)} MB at ${large.rows.toLocaleString()} ` +
          `rows vs ${small.peakRssMb.toFixed(0)} MB at ${small.rows.toLocaleString()} ` +
          `(${(((large.peakRssMb - small.peakRssMb) / small.peakRssMb) * 100).toFixed(1)}%) | | | | | | | | | | |`,
      );
    }
    console.log(`\nservices run with --max-old-space-size=${heapMb}`);
    console.log(
      '\n| run | rows written | total s | rows/s | database s | rollups s | rows/s without database | vs baseline | ' +
        'costasset peak RSS MB | store bytes per line item | store RSS MB before → after drop |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const line of lines) console.log(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(`bench:focus: ${error.message}`);
  process.exit(1);
});
