/**
 * `npm run bench:ingest -- --rows 1000000`
 * Generates a GPD zip of N cost rows, then ingests it end to end through the real services
 * (pre-signed upload, enrich, job) and prints rows/s, the time spent in the database apart, and
 * the peak RSS of the costasset process. The baseline, measured in the same run on the same file,
 * is a bare streaming unzip + CSV parse (yauzl + csv-parse, nothing else). Enrichment runs a second
 * time at a quarter of the rows in a fresh process, to show whether memory grows with row count.
 * The rollup maintenance column is all the time the job spent keeping rollups (summing each batch,
 * bumping the upload's state per batch, storing the rows at the end), measured inside the job.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import * as yauzl from 'yauzl';
import { generateGpd } from '../tools/gpd/generate';
import { peakRssMb, putFile, startServices, stopAndDropDatabase, waitForJob } from './support/services';
import { numberArg } from './support/stats';

interface Measured {
  rows: number;
  seconds: number;
  databaseSeconds: number;
  /** All the time the job spent on rollups (`rollupMs` of its result: per-batch sums and state bumps, final store). */
  rollupSeconds: number;
  peakRssMb: number;
}

async function baselineParse(file: string): Promise<{ rows: number; seconds: number }> {
  const started = performance.now();
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('.csv')) return zip.readEntry();
      zip.openReadStream(entry, async (error, stream) => {
        if (error) return reject(error);
        try {
          for await (const _record of stream.pipe(parse({ bom: true, relax_column_count: true, from_line: 2 }))) rows++;
          zip.readEntry();
        } catch (parseError) {
          reject(parseError as Error);
        }
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return { rows, seconds: (performance.now() - started) / 1000 };
}

async function ingest(file: string, heapMb?: number): Promise<Measured> {
  const services = await startServices('ingest', {
    GPD_MAX_FILE_BYTES: String(2 * 1024 * 1024 * 1024),
    ...(heapMb ? { NODE_OPTIONS: `--max-old-space-size=${heapMb}` } : {}),
  });
  try {
    const token = await services.token();
    const headers = { 'content-type': 'application/json', 'corelite-token': token };
    const submitted = (await (
      await fetch(`${services.costassetUrl}/api/costasset/v1/gpd?providername=aws`, { method: 'POST', headers })
    ).json()) as { GPDUploadRefId: string; uploadUrl: string };
    await putFile(submitted.uploadUrl, file);
    const started = performance.now();
    const enrich = await fetch(`${services.costassetUrl}/api/costasset/v1/gpd/enrich`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ GPDUploadRefId: [submitted.GPDUploadRefId], provider: ['aws'], retry: 'false' }),
    });
    const { jobs } = (await enrich.json()) as { jobs: { jobId: string }[] };
    const job = await waitForJob<{ rowsWritten: number; databaseMs: number; rollupMs?: number }>(services, headers, jobs[0].jobId, 250);
    return {
      rows: job.result?.rowsWritten ?? 0,
      seconds: (performance.now() - started) / 1000,
      databaseSeconds: (job.result?.databaseMs ?? 0) / 1000,
      rollupSeconds: (job.result?.rollupMs ?? 0) / 1000,
      peakRssMb: peakRssMb(services.costassetPid),
    };
  } finally {
    await stopAndDropDatabase(services);
  }
}

function row(label: string, m: Measured, baselineRate: number): string {
  const appSeconds = m.seconds - m.databaseSeconds;
  const appRate = m.rows / appSeconds;
  // the job's whole rollup maintenance (docs/rollups.md) against the rest of the ingestion: the
  // time the same load would take without it
  const slowdown = (m.rollupSeconds / (m.seconds - m.rollupSeconds)) * 100;
  return (
    `| ${label} | ${m.rows.toLocaleString()} | ${m.seconds.toFixed(1)} | ` +
    `${Math.round(m.rows / m.seconds).toLocaleString()} | ${m.databaseSeconds.toFixed(1)} | ` +
    `${Math.round(appRate).toLocaleString()} | ${((appRate / baselineRate) * 100).toFixed(0)}% ` +
    `| ${m.rollupSeconds.toFixed(1)} (+${slowdown.toFixed(1)}%) | ${m.peakRssMb.toFixed(0)} |`
  );
}

async function main(): Promise<void> {
  const rows = numberArg('rows', 1_000_000);
  // --heap-mb N caps the services' V8 old space, to tell lazy heap growth from retained memory
  const heapMb = process.argv.includes('--heap-mb') ? numberArg('heap-mb', 0) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  try {
    const sizes = [Math.round(rows / 4), rows];
    const files = sizes.map((size) => join(dir, `gpd-${size}.zip`));
    for (const [i, size] of sizes.entries())
      await generateGpd({ rows: size, provider: 'aws', accounts: 4, periods: ['202409', '202410', '202411'], out: files[i] });
    const baseline = await baselineParse(files[1]);
    const baselineRate = baseline.rows / baseline.seconds;
    console.log(
      `baseline: streaming unzip + CSV parse of ${baseline.rows.toLocaleString()} ` +
        `rows (${(statSync(files[1]).size / 1e6).toFixed(1)} MB zip): ` +
        `${baseline.seconds.toFixed(1)} s, ${Math.round(baselineRate).toLocaleString()} rows/s`,
    );
    const small = await ingest(files[0], heapMb);
    const large = await ingest(files[1], heapMb);
    if (heapMb) console.log(`\nservices run with --max-old-space-size=${heapMb}`);
    console.log(
      '\n| run | rows written | total s | rows/s | database s | rows/s without database ' +
        '| vs baseline | rollup maintenance s (+ share of the rest) | peak RSS MB |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(row('quarter', small, baselineRate));
    console.log(row('full', large, baselineRate));
    console.log(
      `\npeak RSS grows ${(large.peakRssMb - small.peakRssMb).toFixed(0)} MB ` +
        `from ${small.rows.toLocaleString()} to ${large.rows.toLocaleString()} rows`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(`bench:ingest: ${error.message}`);
  process.exit(1);
});
