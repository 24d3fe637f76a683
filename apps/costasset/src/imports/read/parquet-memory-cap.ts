import { snappyUncompress } from 'hyparquet';
import type { Compressors, FileMetaData, RowGroup } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * What one decoded value costs at least beyond its bytes in the page: its slot in the column's
 * array, and its slot in the row object. A dictionary-encoded string is a reference to the one
 * string of its dictionary entry, so this slot is all it adds (the dictionary itself is in the
 * chunk's uncompressed size).
 */
export const VALUE_SLOT_BYTES = 16;

/** A row group or column chunk of a Parquet file that would take more memory to read than the cap allows. */
export class ParquetCapExceeded extends Error {
  /** `rowGroup` is undefined for the footer. */
  constructor(
    readonly rowGroup: number | undefined,
    readonly what: string,
    readonly bytes: number,
    readonly cap: number,
  ) {
    const where = rowGroup === undefined ? 'footer' : `row group ${rowGroup}`;
    super(`${where}: ${what} needs about ${bytes} bytes to read, over the cap of ${cap} bytes (FOCUS_PARQUET_MEMORY_CAP_BYTES)`);
  }
}

const columnName = (chunk: RowGroup['columns'][number], index: number) => chunk.meta_data?.path_in_schema.join('.') ?? `#${index}`;

/**
 * Checks, from the footer alone, every row group against the cap before a row is read: each
 * column chunk's compressed bytes (one range read) and its decoded bytes (pages after
 * decompression plus a slot per value), and, for a row group decoded whole, the sum of both over
 * all its columns. The decoded size is a lower bound; the page guard below counts the real one.
 */
export function checkRowGroups(metadata: FileMetaData, cap: number, readWhole: (group: RowGroup) => boolean): void {
  metadata.row_groups.forEach((group, index) => {
    let fetched = 0;
    let decoded = 0;
    group.columns.forEach((chunk, at) => {
      const meta = chunk.meta_data;
      if (!meta) return;
      const compressed = Number(meta.total_compressed_size);
      const values = Number(meta.total_uncompressed_size) + Number(meta.num_values) * VALUE_SLOT_BYTES;
      if (compressed > cap) throw new ParquetCapExceeded(index, `column ${columnName(chunk, at)} (compressed)`, compressed, cap);
      if (values > cap) throw new ParquetCapExceeded(index, `column ${columnName(chunk, at)} (decoded)`, values, cap);
      fetched += compressed;
      decoded += values;
    });
    if (readWhole(group) && fetched + decoded > cap)
      throw new ParquetCapExceeded(index, `the row group, read whole (${fetched} compressed, ${decoded} decoded)`, fetched + decoded, cap);
  });
}

/** Counts the bytes one read (one row group, or one slice of it) fetches and decompresses. */
export class ReadAllowance {
  private used = 0;
  private rowGroup: number | undefined;
  constructor(readonly cap: number) {}

  /** A new read starts: a row group, or a slice of one. */
  reset(rowGroup: number): void {
    this.rowGroup = rowGroup;
    this.used = 0;
  }

  /** Takes `bytes` of the allowance, or throws before they are allocated. */
  take(bytes: number, what: string): void {
    if (this.used + bytes > this.cap) throw new ParquetCapExceeded(this.rowGroup, what, this.used + bytes, this.cap);
    this.used += bytes;
  }
}

/**
 * The decompressors of hyparquet-compressors (and hyparquet's own Snappy), each taking the page's
 * uncompressed size (from its page header, known before decompressing) from the allowance first:
 * footers can lie, page headers are what gets allocated.
 */
export function guardedDecompressors(allowance: ReadAllowance): Compressors {
  const guarded: Compressors = {
    SNAPPY: (input, outputLength) => {
      const output = new Uint8Array(outputLength);
      snappyUncompress(input, output);
      return output;
    },
  };
  for (const [codec, decompress] of Object.entries({ ...guarded, ...compressors }) as [
    keyof Compressors,
    NonNullable<Compressors[keyof Compressors]>,
  ][]) {
    guarded[codec] = (input, outputLength) => {
      allowance.take(outputLength, 'a decompressed page');
      return decompress(input, outputLength);
    };
  }
  return guarded;
}
