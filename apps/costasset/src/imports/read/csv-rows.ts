import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { PermanentJobError } from '../../jobs/job-handler';

export interface CsvRecord {
  row: Record<string, string>;
  line: number;
  /** Set for a row whose field count differs from the header's: the row is reported, not used. */
  problem?: string;
}

export interface CsvOptions {
  delimiter?: string;
  quote?: string;
  encoding?: BufferEncoding;
  /** Called with the header row (trimmed) before any data row, even when no data row follows. */
  onHeader?: (header: string[]) => void;
}

const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * Streams the data rows of one CSV (RFC 4180, header row) as objects keyed by the header.
 * A CSV that cannot be parsed at all fails the file (a PermanentJobError naming file and line).
 */
export async function* readCsvRows(source: Readable, fileName: string, options: CsvOptions = {}): AsyncGenerator<CsvRecord> {
  const { onHeader, ...csv } = options;
  const parser = source.pipe(
    parse({
      ...csv,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_BYTES,
      info: true,
    }),
  );
  source.once('error', (error) => parser.destroy(error));
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!header) {
        header = record.map((column) => column.trim());
        onHeader?.(header);
        continue;
      }
      if (record.length !== header.length) {
        yield { row: {}, line: info.lines, problem: `expected ${header.length} fields, found ${record.length}` };
        continue;
      }
      // fromEntries defines own properties: a column named __proto__ stays a plain field.
      yield { row: Object.fromEntries(header.map((column, index) => [column, record[index]])), line: info.lines };
    }
  } catch (error) {
    const reason = `${fileName} is not a readable CSV: ${(error as Error).message}`;
    throw new PermanentJobError(reason, { errors: [{ file: fileName, line: (error as { lines?: number }).lines ?? 0, reason }] });
  }
}
