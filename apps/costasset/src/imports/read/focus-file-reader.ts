import { Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Client } from 'minio';
import { readCsvRows } from './csv-rows';
import { PermanentJobError } from '../../jobs/job-handler';
import type { FocusFileFormat } from '../../uploads/schemas/upload.schema';
import type { FocusFile, FocusFileRow } from './focus-file';
import { openParquet } from './parquet-rows';

/**
 * Opens a stored FOCUS file for streaming: CSV and CSV.gz through csv-parse (gunzipped on the
 * fly), Parquet through hyparquet over range reads, one row group (or slice of one) at a time,
 * within `parquetCap` bytes. Nothing is held whole in memory or written to disk.
 */
export async function openFocusFile(
  store: Client,
  bucket: string,
  key: string,
  size: number,
  name: string,
  format: FocusFileFormat,
  parquetCap: number,
): Promise<FocusFile> {
  if (format === 'parquet') return openParquet(store, bucket, key, size, name, parquetCap);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const object = (await store.getObject(bucket, key)).pipe(counter);
  let source: Readable = object;
  if (format === 'csv.gz') {
    const gunzip = createGunzip();
    object.once('error', (error) => gunzip.destroy(error));
    gunzip.once('error', (error) => {
      gunzip.destroy(new Error(`${name} is not a readable gzip file: ${error.message}`));
    });
    source = object.pipe(gunzip);
  }
  let header: string[] | undefined;
  const records = readCsvRows(source, name, { onHeader: (found) => (header = found) });
  const first = await records.next();
  if (!header)
    throw new PermanentJobError(`${name} has no header row`, { errors: [{ file: name, line: 0, reason: 'the file has no header row' }] });
  async function* rows(): AsyncGenerator<FocusFileRow> {
    if (!first.done) yield first.value;
    for await (const record of records) yield record;
  }
  return { header, metadata: {}, rows: rows(), bytesRead: () => bytes };
}
