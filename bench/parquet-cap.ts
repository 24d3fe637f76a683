/**
 * `npm run bench:parquet-cap -- [--rows 2097152] [--value-bytes 1024] [--cap-mb N]`
 * Writes a FOCUS Parquet file of one row group whose ResourceName column alone decodes to
 * rows × value-bytes (2 GiB by default), PLAIN-encoded and GZIP-compressed: the same string in
 * every row, so the file is a few MB and its generation holds one value and arrays of references.
 * Imports it through the real services (create upload, pre-signed PUT, import job) and prints
 * the job's outcome and the peak RSS of the costasset process next to its
 * FOCUS_PARQUET_MEMORY_CAP_BYTES (the service's default unless --cap-mb).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { freemem, totalmem, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as hyparquetWriter from 'hyparquet-writer';
import { ParquetWriter } from 'hyparquet-writer';
import type { Writer } from 'hyparquet-writer';
import { MongoClient } from 'mongodb';
import { defaultParquetCap } from '../apps/costasset/src/costasset.environment';
import { stackUp } from '../tools/stack';
import { peakRssMb, putFile, startServices, stopAndDropDatabase } from './support/services';
import { numberArg } from './support/stats';

const MiB = 1024 * 1024;
// the Node entry of hyparquet-writer has it; the types this project resolves are those of the browser entry
const { fileWriter } = hyparquetWriter as unknown as { fileWriter(path: string): Writer };

function writeFile(out: string, rows: number, valueBytes: number): void {
  const same = (value: unknown) => new Array<unknown>(rows).fill(value);
  // every row holds the same value object: a string, or for the large column its UTF-8 bytes once
  // (given bytes, the writer does not encode a copy of the string per row)
  const text = (name: string, value: string | Uint8Array, encoding?: 'PLAIN') => ({
    name,
    data: same(value),
    type: 'STRING' as const,
    nullable: false,
    offsetIndex: false,
    ...(encoding ? { encoding } : {}),
  });
  const writer = new ParquetWriter({
    writer: fileWriter(out),
    schema: [
      { name: 'root', num_children: 6 },
      ...['ChargePeriodStart', 'BilledCost', 'BillingCurrency', 'BillingAccountId', 'ProviderName', 'ResourceName'].map((name) => ({
        name,
        type: 'BYTE_ARRAY' as const,
        converted_type: 'UTF8' as const,
        repetition_type: 'REQUIRED' as const,
      })),
    ],
    codec: 'GZIP',
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input)) },
    statistics: false,
    kvMetadata: [{ key: 'FocusVersion', value: '1.2' }],
  });
  writer.write({
    columnData: [
      text('ChargePeriodStart', '2024-10-01T00:00:00Z'),
      text('BilledCost', '0.01'),
      text('BillingCurrency', 'USD'),
      text('BillingAccountId', '111111111111'),
      text('ProviderName', 'AWS'),
      text('ResourceName', new TextEncoder().encode('r'.repeat(valueBytes)), 'PLAIN'),
    ],
    rowGroupSize: rows,
  });
  writer.finish();
}

async function main(): Promise<void> {
  const rows = numberArg('rows', 2 * 1024 * 1024);
  const valueBytes = numberArg('value-bytes', 1024);
  const capIndex = process.argv.indexOf('--cap-mb');
  const cap = capIndex >= 0 ? numberArg('cap-mb', 0) * MiB : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-parquet-cap-'));
  try {
    const file = join(dir, 'one-row-group.parquet');
    const generating = performance.now();
    writeFile(file, rows, valueBytes);
    console.log(
      `generated ${file}: ${rows.toLocaleString()} rows in one row group, ` +
        `ResourceName ${((rows * valueBytes) / 1024 ** 3).toFixed(2)} GiB decoded, ` +
        `file ${(statSync(file).size / MiB).toFixed(1)} MiB, in ${((performance.now() - generating) / 1000).toFixed(1)} ` +
        `s (bench process peak RSS ${peakRssMb(process.pid).toFixed(0)} MB)`,
    );
    // an e2e run may have left the shared mongod refusing collection scans, which start-up needs before its indexes exist
    const stack = await stackUp({ profile: process.env.STACK_PROFILE ?? 'dev', log: () => undefined });
    const mongo = await MongoClient.connect(stack.MONGODB_URI);
    await mongo.db('admin').command({ setParameter: 1, notablescan: false });
    await mongo.close();
    const services = await startServices('parquet_cap', cap ? { FOCUS_PARQUET_MEMORY_CAP_BYTES: String(cap) } : {});
    try {
      const headers = { 'content-type': 'application/json', 'corelite-token': await services.token() };
      const api = (path: string, init: RequestInit = {}) => fetch(`${services.costassetUrl}${path}`, { headers, ...init });
      const created = (await (
        await api('/api/costasset/v1/focus/uploads', {
          method: 'POST',
          body: JSON.stringify({ files: [{ name: 'one-row-group.parquet' }] }),
        })
      ).json()) as { importPath: string; files: { uploadUrl: string }[] };
      await putFile(created.files[0].uploadUrl, file);
      const rssBefore = peakRssMb(services.costassetPid);
      const started = performance.now();
      const { jobId } = (await (await api(created.importPath, { method: 'POST', body: '{}' })).json()) as { jobId: string };
      let job: { status: string; error?: string; attempts?: number } = { status: 'queued' };
      while (!['succeeded', 'completed_with_errors', 'failed', 'terminated'].includes(job.status)) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        job = (await (await api(`/api/costasset/v1/jobs/${jobId}`)).json()) as typeof job;
      }
      const seconds = (performance.now() - started) / 1000;
      const peak = peakRssMb(services.costassetPid);
      const capBytes = cap ?? defaultParquetCap();
      console.log(`job ${job.status} after ${seconds.toFixed(1)} s, ${job.attempts} attempt(s): ${job.error ?? ''}`);
      console.log(
        '\n| date | machine | file | row group decoded | outcome | costasset peak RSS (before import) | FOCUS_PARQUET_MEMORY_CAP_BYTES |',
      );
      console.log('|---|---|---|---|---|---|---|');
      console.log(
        `| ${new Date().toISOString().slice(0, 10)} | ${cpus().length} cores, ` +
          `${(totalmem() / 1024 ** 3).toFixed(1)} GiB (${(freemem() / 1024 ** 3).toFixed(1)} free) ` +
          `| ${(statSync(file).size / MiB).toFixed(1)} MiB | ${((rows * valueBytes) / 1024 ** 3).toFixed(2)} ` +
          `GiB | ${job.status} in ${seconds.toFixed(1)} s, ${job.attempts} attempt(s) | ${peak.toFixed(0)} ` +
          `MB (${rssBefore.toFixed(0)} MB) | ${(capBytes / MiB).toFixed(0)} MiB${cap ? '' : ' (default)'} |`,
      );
      if (job.status !== 'failed' || peak * MiB > capBytes) process.exitCode = 1;
    } finally {
      await stopAndDropDatabase(services);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(`bench:parquet-cap: ${error.message}`);
  process.exit(1);
});
