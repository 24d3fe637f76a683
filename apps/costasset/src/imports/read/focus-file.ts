import type { CellRow } from '../map/cells';

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
