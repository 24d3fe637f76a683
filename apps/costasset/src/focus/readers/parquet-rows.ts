import { Client } from 'minio';
import { parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import type { AsyncBuffer, FileMetaData, RowGroup } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { PermanentJobError } from '../../jobs/job-handler';
import type { FocusFile, FocusFileRow } from './focus-file-reader';

/** Rows decoded at once from a row group that has offset indexes (pages are read as needed). */
export const PARQUET_SLICE_ROWS = 10_000;

/** hyparquet's file: every `slice` is an HTTP range request on the object store, nothing is cached. */
function objectBuffer(store: Client, bucket: string, key: string, size: number, onRead: (bytes: number) => void): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const stop = Math.min(end ?? size, size);
      if (stop <= start) return new ArrayBuffer(0);
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

const unreadable = (name: string, error: unknown) => {
  const reason = `${name} is not a readable Parquet file: ${(error as Error).message}`;
  return new PermanentJobError(reason, { errors: [{ file: name, line: 0, reason }] });
};

/**
 * Reads a Parquet file by row group (Snappy, ZSTD, GZIP, Brotli, LZ4 through
 * hyparquet-compressors). A row group with offset indexes is decoded in slices of
 * PARQUET_SLICE_ROWS rows; one without is decoded whole, so memory is bounded by the writer's
 * row-group size, never by the file size.
 */
export async function openParquet(store: Client, bucket: string, key: string, size: number, name: string): Promise<FocusFile> {
  let bytes = 0;
  const file = objectBuffer(store, bucket, key, size, (read) => (bytes += read));
  let metadata: FileMetaData;
  let header: string[];
  try {
    metadata = await parquetMetadataAsync(file);
    header = parquetSchema(metadata).children.map((child) => child.element.name);
  } catch (error) {
    throw unreadable(name, error);
  }
  const keyValues = Object.fromEntries((metadata.key_value_metadata ?? []).map(({ key: entry, value }) => [entry, value ?? '']));

  async function* rows(): AsyncGenerator<FocusFileRow> {
    let groupStart = 0;
    for (const group of metadata.row_groups) {
      const groupRows = Number(group.num_rows);
      const step = hasOffsetIndexes(group) ? PARQUET_SLICE_ROWS : groupRows;
      for (let start = groupStart; start < groupStart + groupRows; start += step) {
        const end = Math.min(start + step, groupStart + groupRows);
        let slice: Record<string, unknown>[];
        try {
          slice = await parquetReadObjects({
            file,
            metadata,
            rowStart: start,
            rowEnd: end,
            compressors,
            useOffsetIndex: step !== groupRows,
          });
        } catch (error) {
          throw unreadable(name, error);
        }
        for (let at = 0; at < slice.length; at++) yield { row: slice[at] as FocusFileRow['row'], line: start + at + 1 };
      }
      groupStart += groupRows;
    }
  }
  return { header, metadata: keyValues, rows: rows(), bytesRead: () => bytes };
}
