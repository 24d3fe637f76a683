import { Client } from 'minio';
import { parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import type { AsyncBuffer, FileMetaData, RowGroup } from 'hyparquet';
import { rethrowTransient } from '../../jobs/faults';
import { PermanentJobError } from '../../jobs/job-handler';
import type { Cell } from '../map/cells';
import type { FocusFile, FocusRowBatch } from './focus-file';
import { checkRowGroups, guardedDecompressors, ParquetCapExceeded, ReadAllowance } from './parquet-memory-cap';

/** Rows decoded at once from a row group that has offset indexes (pages are read as needed). */
export const PARQUET_SLICE_ROWS = 10_000;

/**
 * hyparquet's file: every `slice` is an HTTP range request on the object store, nothing is cached.
 * Each range is taken from the read's allowance before it is fetched.
 */
function objectBuffer(
  store: Client,
  bucket: string,
  key: string,
  size: number,
  allowance: ReadAllowance,
  onRead: (bytes: number) => void,
): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const stop = Math.min(end ?? size, size);
      if (stop <= start) return new ArrayBuffer(0);
      allowance.take(stop - start, 'a range read');
      const stream = await store.getPartialObject(bucket, key, start, stop - start);
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      onRead(bytes.length);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
}

const hasOffsetIndexes = (group: RowGroup) =>
  group.columns.every((chunk) => chunk.offset_index_offset !== undefined && chunk.offset_index_length);

const failure = (name: string, reason: string) => new PermanentJobError(reason, { errors: [{ file: name, line: 0, reason }] });

const unreadable = (name: string, error: unknown) => {
  rethrowTransient('object store', error);
  if (error instanceof ParquetCapExceeded) return failure(name, `${name} is too large to read: ${error.message}`);
  return failure(name, `${name} is not a readable Parquet file: ${(error as Error).message}`);
};

/**
 * Reads a Parquet file by row group (Snappy, ZSTD, GZIP, Brotli, LZ4 through
 * hyparquet-compressors). A row group with offset indexes is decoded in slices of
 * PARQUET_SLICE_ROWS rows; one without is decoded whole. Memory is bounded by `cap`: the footer
 * is checked before any row is read, and every range read and decompressed page is counted.
 */
export async function openParquet(store: Client, bucket: string, key: string, size: number, name: string, cap: number): Promise<FocusFile> {
  let bytes = 0;
  const allowance = new ReadAllowance(cap);
  const file = objectBuffer(store, bucket, key, size, allowance, (read) => (bytes += read));
  const decompressors = guardedDecompressors(allowance);
  let metadata: FileMetaData;
  let header: string[];
  try {
    metadata = await parquetMetadataAsync(file);
    header = parquetSchema(metadata).children.map((child) => child.element.name);
    checkRowGroups(metadata, cap, (group) => !hasOffsetIndexes(group));
  } catch (error) {
    throw unreadable(name, error);
  }
  const keyValues = Object.fromEntries((metadata.key_value_metadata ?? []).map(({ key: entry, value }) => [entry, value ?? '']));

  /** The slices to decode: a row group with offset indexes by PARQUET_SLICE_ROWS rows, one without whole. */
  function* slices(): Generator<{ index: number; start: number; end: number; sliced: boolean }> {
    let groupStart = 0;
    for (const [index, group] of metadata.row_groups.entries()) {
      const groupRows = Number(group.num_rows);
      const step = hasOffsetIndexes(group) ? PARQUET_SLICE_ROWS : groupRows;
      for (let start = groupStart; start < groupStart + groupRows; start += step) {
        yield { index, start, end: Math.min(start + step, groupStart + groupRows), sliced: step !== groupRows };
      }
      groupStart += groupRows;
    }
  }

  /** The rows as arrays of cells in the header's order, one batch per slice. */
  async function* batches(): AsyncGenerator<FocusRowBatch> {
    for (const { index, start, end, sliced } of slices()) {
      let slice: Cell[][] = [];
      allowance.reset(index);
      try {
        await parquetRead({
          file,
          metadata,
          rowStart: start,
          rowEnd: end,
          compressors: decompressors,
          useOffsetIndex: sliced,
          rowFormat: 'array',
          onComplete: (read: unknown[][]) => (slice = read as Cell[][]),
        });
      } catch (error) {
        throw unreadable(name, error);
      }
      const lines = new Array<number>(slice.length);
      for (let at = 0; at < slice.length; at++) lines[at] = start + at + 1;
      yield { rows: slice, lines };
    }
  }
  return { header, metadata: keyValues, batches: batches(), bytesRead: () => bytes };
}
