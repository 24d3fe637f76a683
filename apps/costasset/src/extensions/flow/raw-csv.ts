import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { PermanentJobError } from '../../jobs/job-handler';
import { ExtensionManifest } from '../manifest/extension-manifest';
import { RawRow } from './row-mapper';

export interface RawRecord {
  row: RawRow;
  line: number;
  problem?: string;
}

const MAX_RECORD_BYTES = 1024 * 1024;

/** Streams the rows of one raw CSV as objects keyed by its header, with the manifest's CSV options. */
export async function* readRawRows(
  source: Readable,
  options: ExtensionManifest['input']['csv'],
  fileName: string,
): AsyncGenerator<RawRecord> {
  const encoding = options.encoding === 'utf-8' ? 'utf8' : options.encoding;
  const parser = source.pipe(
    parse({
      delimiter: options.delimiter,
      quote: options.quote,
      encoding,
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
