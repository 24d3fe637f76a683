import type { Cell } from '../map/cells';

/** Rows of a file as read, one chunk (CSV) or row-group slice (Parquet) at a time: each row the cells of the header, in order. */
export interface FocusRowBatch {
  rows: readonly (readonly Cell[])[];
  /** The line of each row (CSV: the line it ends on, header = 1; Parquet: the 1-based row). */
  lines: readonly number[];
  /** Set at `i` when row `i` cannot be used as a whole (a CSV row with the wrong number of fields). */
  problems?: readonly (string | undefined)[];
}

/** One file of an upload, opened for reading: its header first, then its rows, streamed. */
export interface FocusFile {
  header: string[];
  /** Key-value metadata of the file (Parquet), e.g. `FocusVersion`. */
  metadata: Record<string, string>;
  /** The rows in batches of row arrays (`HeaderPlan.headers` order), for `costRowReader`. */
  batches: AsyncGenerator<FocusRowBatch>;
  /** Bytes of the stored object read so far (the unit of progress). */
  bytesRead(): number;
}
