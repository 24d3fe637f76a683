import { Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Client } from 'minio';
import { readCsvRows } from '../../enrichment/csv-rows';
import type { CellRow } from '../../ingest-rules/cells';
import { PermanentJobError } from '../../jobs/job-handler';
import type { FocusFileFormat } from '../../gpd/schemas/gpd-upload.schema';
import { openParquet } from './parquet-rows';

export interface FocusFileRow {
  row: CellRow;
  /** CSV: the line (header = 1). Parquet: the 1-based row. */
  line: number;
  /** A row that cannot be used as a whole (a CSV row with the wrong number of fields). */
  problem?: string;
}

/** One file of an upload, opened for reading: its header first, then its rows, streamed. */
export interface FocusFile {
  header: string[];
  /** Key-value metadata of the file (Parquet), e.g. `FocusVersion`. */
  metadata: Record<string, string>;
  rows: AsyncGenerator<FocusFileRow>;
  /** Bytes of the stored object read so far (the unit of progress). */
  bytesRead(): number;
}

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
