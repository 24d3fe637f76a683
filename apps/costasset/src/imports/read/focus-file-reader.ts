import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Client } from 'minio';
import { rethrowTransient } from '../../jobs/faults';
import type { FocusFileFormat } from '../../uploads/schemas/upload.schema';
import { openFocusCsv } from './focus-csv';
import type { FocusFile } from './focus-file';
import { byteCounter, piped } from './object-stream';
import { openParquet } from './parquet-rows';

/** A gunzip whose own decoding errors name the file (a fault of the object store passes through as it is). */
function gunzipOf(name: string) {
  const gunzip = createGunzip();
  gunzip.once('error', (error: Error & { code?: string }) => {
    if (error.code?.startsWith('Z_')) error.message = `${name} is not a readable gzip file: ${error.message}`;
  });
  return gunzip;
}

/**
 * Opens a stored FOCUS file for streaming: CSV and CSV.gz through papaparse (gunzipped on the
 * fly), Parquet through hyparquet over range reads, one row group (or slice of one) at a time,
 * within `parquetCap` bytes. Nothing is held whole in memory or written to disk. A fault of the
 * object store (on opening or mid-read) is a TransientFault: the attempt is retried.
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
  const object = await store.getObject(bucket, key).catch((error: unknown) => {
    rethrowTransient('object store', error);
    throw error;
  });
  const counter = byteCounter((read) => (bytes += read));
  const source: Readable = format === 'csv.gz' ? piped(object, counter, gunzipOf(name)) : piped(object, counter);
  const { header, batches } = await openFocusCsv(source, name);
  return { header, metadata: {}, batches, bytesRead: () => bytes };
}
