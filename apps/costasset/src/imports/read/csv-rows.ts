import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import Papa from 'papaparse';
import { rethrowTransient } from '../../jobs/faults';
import { PermanentJobError } from '../../jobs/job-handler';

export interface CsvRecord {
  row: Record<string, string>;
  line: number;
  /** Set for a row whose field count differs from the header's: the row is reported, not used. */
  problem?: string;
}

/** Data records of a CSV as read, chunk by chunk: each record is the array of its fields, in the header's order. */
export interface CsvBatch {
  rows: string[][];
  /** The line of each record: the line it ends on (header = 1; quoted line breaks and blank lines counted). */
  lines: number[];
  /** Set at `i` when record `i` has a field count other than the header's: the row is reported, not used. */
  problems?: (string | undefined)[];
}

export interface CsvOptions {
  delimiter?: string;
  quote?: string;
  encoding?: BufferEncoding;
  /** Called with the header row (trimmed) before any data row, even when no data row follows. */
  onHeader?: (header: string[]) => void;
}

/** The longest record read, in characters (delimiters and quotes included). */
export const MAX_RECORD_BYTES = 1024 * 1024;

const BOMS = [
  { bytes: Buffer.from([0xef, 0xbb, 0xbf]), encoding: 'utf8' as const },
  { bytes: Buffer.from([0xff, 0xfe]), encoding: 'utf16le' as const },
];

class CsvFault extends Error {
  constructor(
    message: string,
    readonly lines: number,
  ) {
    super(message);
  }
}

const count = (text: string, char: string, end: number): number => {
  let found = 0;
  for (let at = text.indexOf(char); at >= 0 && at < end; at = text.indexOf(char, at + 1)) found++;
  return found;
};

/**
 * The record delimiter of a CSV, from the first line break outside quotes (`\r\n`, `\n` or `\r`, as
 * csv-parse discovers it); `undefined` while the text read so far does not hold the whole first row.
 */
function recordDelimiterOf(text: string, quote: string, final: boolean): string | undefined {
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === quote) quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) {
      if (char === '\n') return '\n';
      if (at + 1 < text.length) return text[at + 1] === '\n' ? '\r\n' : '\r';
      return final ? '\r' : undefined;
    }
  }
  return final ? '\n' : undefined;
}

/**
 * Parses a CSV with papaparse's parser, chunk by chunk, as csv-parse did with the options this
 * reader always used (`bom`, `relax_column_count`, `skip_empty_lines`, `max_record_size`, `info`):
 * - bytes are decoded by a StringDecoder (a character split across chunks stays whole), a BOM is dropped;
 * - the record delimiter is found in the first row, which is read whole before parsing starts;
 * - line numbers are counted here: a record's line is the line it ends on, every `\r` or `\n` inside
 *   its fields counting as csv-parse counts them, blank lines skipped but counted;
 * - a record longer than MAX_RECORD_BYTES characters, and quotes papaparse reports as malformed or
 *   unclosed, fail the file.
 */
class CsvChunkParser {
  private decoder: StringDecoder;
  /** The first bytes, until a byte order mark can be told (then `undefined`). */
  private head: Buffer | undefined = Buffer.alloc(0);
  private readonly quote: string;
  private parser: Papa.Parser | undefined;
  private stepParser: Papa.Parser | undefined;
  /** Where each record ends in the text the step parser reads. */
  private ends: number[] = [];
  private delimiterOfRecords = '';
  private pending = '';
  private started = false;
  /** Lines of the records (and blank lines) read so far. */
  private linesDone = 0;

  constructor(private readonly options: Omit<CsvOptions, 'onHeader'>) {
    this.decoder = new StringDecoder(options.encoding ?? 'utf8');
    this.quote = options.quote ?? '"';
  }

  /** The complete records of the text read so far (`final`: the text is whole). */
  push(chunk: Buffer | string | undefined, final: boolean): { records: string[][]; lines: number[] } {
    if (this.head !== undefined) {
      // the first bytes: a byte order mark chooses the decoding, as csv-parse's `bom` does
      if (chunk !== undefined && typeof chunk !== 'string') this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 3 && !final && typeof chunk !== 'string') return { records: [], lines: [] };
      const head = this.head;
      this.head = undefined;
      const bom = BOMS.find(({ bytes }) => head.subarray(0, bytes.length).equals(bytes));
      if (bom) this.decoder = new StringDecoder(bom.encoding);
      const bytes = bom ? head.subarray(bom.bytes.length) : head;
      const text = bytes.length > 0 ? this.decoder.write(bytes) : '';
      return this.take(typeof chunk === 'string' ? text + chunk : text, final);
    }
    return this.take(chunk === undefined ? '' : typeof chunk === 'string' ? chunk : this.decoder.write(chunk), final);
  }

  private take(decoded: string, final: boolean): { records: string[][]; lines: number[] } {
    let text = decoded;
    if (final) text += this.decoder.end();
    this.pending = this.pending.length === 0 ? text : this.pending + text;
    if (!this.started) {
      if (this.pending.length === 0 && !final) return { records: [], lines: [] };
      if (this.pending.charCodeAt(0) === 0xfeff) this.pending = this.pending.slice(1);
      this.started = true;
    }
    if (!this.parser) {
      const delimiter = recordDelimiterOf(this.pending, this.quote, final);
      if (delimiter === undefined) {
        this.guardSize(this.pending.length);
        return { records: [], lines: [] };
      }
      this.delimiterOfRecords = delimiter;
      this.parser = new Papa.Parser(this.config());
    }
    const input = this.pending;
    if (input.length === 0) return { records: [], lines: [] };
    const result = this.parser.parse(input, 0, !final) as Papa.ParseResult<string[]>;
    const consumed = final ? input.length : result.meta.cursor;
    this.pending = consumed === input.length ? '' : input.slice(consumed);
    const records = result.data;
    // an error of the unfinished last row (cut by the chunk: `"a"\r` before its `\n`) is not one: that row is read again
    const errors = result.errors.filter((error) => (error.row ?? 0) < records.length);
    this.checkOpeningQuotes(input, consumed);
    const lines = this.linesOf(input, consumed, records, errors, final);
    this.guardSize(this.pending.length);
    return { records, lines };
  }

  private config(step?: (results: Papa.ParseStepResult<string[]>) => void): Papa.ParseConfig {
    const quote = this.quote;
    return {
      delimiter: this.options.delimiter ?? ',',
      newline: this.delimiterOfRecords as Papa.ParseConfig['newline'],
      quoteChar: quote,
      // csv-parse's escape is `"` whatever the quote
      escapeChar: '"',
      ...(step ? { step } : {}),
    };
  }

  private guardSize(length: number): void {
    if (length > MAX_RECORD_BYTES) throw this.sizeFault(this.linesDone + 1);
  }

  private sizeFault(line: number): CsvFault {
    return new CsvFault(
      `Max Record Size: record exceed the maximum number of tolerated bytes of ${MAX_RECORD_BYTES} at line ${line}`,
      line,
    );
  }

  /**
   * The line of each record, blank lines taken out of `records` (in place). When the text holds one
   * line break per record and no blank line, the lines follow each other; else (line breaks in
   * fields, blank lines, a text over MAX_RECORD_BYTES) each record is looked at in the text.
   */
  private linesOf(input: string, consumed: number, records: string[][], errors: Papa.ParseError[], final: boolean): number[] {
    const delimiter = this.delimiterOfRecords;
    const terminated = final && consumed > 0 && !input.endsWith(delimiter) ? records.length - 1 : records.length;
    let blank = false;
    for (let index = 0; index < records.length; index++) {
      const record = records[index];
      if (record.length === 1 && record[0] === '') {
        blank = true;
        break;
      }
    }
    const newlines = count(input, '\n', consumed);
    const returns = count(input, '\r', consumed);
    const regular =
      !blank &&
      errors.length === 0 &&
      consumed <= MAX_RECORD_BYTES &&
      (delimiter === '\n'
        ? newlines === terminated && returns === 0
        : delimiter === '\r\n'
          ? newlines === terminated && returns === terminated
          : returns === terminated && newlines === 0);
    if (regular) {
      const lines = new Array<number>(records.length);
      for (let index = 0; index < records.length; index++) lines[index] = this.linesDone + index + 1;
      this.linesDone += terminated;
      return lines;
    }
    return this.linesOfEach(input.slice(0, consumed), records, errors, final);
  }

  /** Parses the text again, record by record (papaparse's step gives where each one ends), to count its lines. */
  private linesOfEach(text: string, records: string[][], errors: Papa.ParseError[], final: boolean): number[] {
    const ends: number[] = (this.ends = []);
    this.stepParser ??= new Papa.Parser(this.config((results) => this.ends.push(results.meta.cursor)));
    // as the text was read: whole at the end, else without what follows its last record delimiter
    this.stepParser.parse(text, 0, !final);
    if (ends.length !== records.length) throw new Error('the CSV parser read a text two ways');
    const delimiter = this.delimiterOfRecords;
    const lines: number[] = [];
    const kept: string[][] = [];
    let from = 0;
    const errorRows = new Set(errors.map((error) => error.row));
    const breaks = (part: string) => count(part, '\n', part.length) + count(part, '\r', part.length);
    for (let index = 0; index < records.length; index++) {
      const end = ends[index];
      const terminated = text.startsWith(delimiter, end - delimiter.length) && end - delimiter.length >= from;
      const body = text.slice(from, terminated ? end - delimiter.length : end);
      if (errorRows.has(index)) {
        // the line csv-parse names: of the quote that closes the field too early, or the last one for a quote never closed
        const error = errors.find((found) => found.row === index) as Papa.ParseError;
        const upto =
          error.code === 'MissingQuotes'
            ? text.replace(/[\r\n]$/, '').length
            : this.closingQuote(text, Math.max(error.index ?? from, from));
        throw this.quoteFault(error, this.linesDone + 1 + breaks(text.slice(from, upto)));
      }
      from = end;
      const line = this.linesDone + 1 + breaks(body);
      if (body.length > MAX_RECORD_BYTES) throw this.sizeFault(this.linesDone + 1);
      if (terminated) this.linesDone = line;
      // a blank line (no character at all) is skipped, as csv-parse's skip_empty_lines does; `""` is a record
      if (body.length === 0) continue;
      kept.push(records[index]);
      lines.push(line);
    }
    if (errors.length > 0) throw this.quoteFault(errors[0], this.linesDone + 1);
    records.length = 0;
    for (const record of kept) records.push(record);
    return lines;
  }

  /**
   * csv-parse refuses a quote inside a field that does not start with one (`ab"c`, ` "c"`) and a
   * closing quote followed by anything but a delimiter or a line break (`"a" ,`); papaparse keeps
   * the first as text and the blanks of the second. Follows the quotes of the records read (from
   * record to record, each quote opens a field, is doubled inside it, or closes it) and refuses them.
   */
  private checkOpeningQuotes(text: string, end: number): void {
    const quote = this.quote;
    const delimiter = this.options.delimiter ?? ',';
    const records = this.delimiterOfRecords;
    let quoted = false;
    for (let at = text.indexOf(quote); at >= 0 && at < end; at = text.indexOf(quote, at + 1)) {
      if (quoted) {
        if (text[at + 1] === quote) at++;
        else if (at + 1 === text.length || text.startsWith(delimiter, at + 1) || text.startsWith(records, at + 1)) quoted = false;
        else {
          const line = this.lineAt(text, at);
          throw new CsvFault(`Invalid Closing Quote: a quoted field goes on after its closing quote at line ${line}`, line);
        }
        continue;
      }
      const fieldStart = at === 0 || text.startsWith(delimiter, at - delimiter.length) || text.startsWith(records, at - records.length);
      if (!fieldStart) {
        const line = this.lineAt(text, at);
        throw new CsvFault(`Invalid Opening Quote: a quote is found in a field that does not start with one at line ${line}`, line);
      }
      quoted = true;
    }
  }

  /** The line of `position` in the text of whole records, as csv-parse counts: a `\r\n` of a quoted field is two lines. */
  private lineAt(text: string, position: number): number {
    const records = this.delimiterOfRecords;
    const breaks = (part: string, quoted: boolean) =>
      count(part, '\n', part.length) +
      count(part, '\r', part.length) -
      (!quoted && records === '\r\n' ? count(part, '\r\n', part.length) : 0);
    let line = this.linesDone + 1;
    let quoted = false;
    let from = 0;
    for (let at = text.indexOf(this.quote); at >= 0 && at < position; at = text.indexOf(this.quote, at + 1)) {
      if (quoted && text[at + 1] === this.quote) {
        at++;
        continue;
      }
      line += breaks(text.slice(from, at), quoted);
      from = at;
      quoted = !quoted;
    }
    return line + breaks(text.slice(from, position), quoted);
  }

  /** The first quote from `at` on that is not doubled: the one papaparse found followed by neither delimiter nor line break. */
  private closingQuote(text: string, at: number): number {
    for (let found = text.indexOf(this.quote, at); found >= 0; found = text.indexOf(this.quote, found + 2)) {
      if (text[found + 1] !== this.quote) return found;
    }
    return text.length;
  }

  private quoteFault(error: Papa.ParseError, line: number): CsvFault {
    const what =
      error.code === 'MissingQuotes'
        ? 'Quote Not Closed: the parsing is finished with an opening quote'
        : 'Invalid Closing Quote: a quoted field goes on after its closing quote';
    return new CsvFault(`${what} at line ${line}`, line);
  }
}

/**
 * Streams the data records of one CSV (RFC 4180, header row) in batches, one per chunk read: the
 * record arrays themselves, with their lines and field-count problems.
 * A CSV that cannot be parsed at all fails the file (a PermanentJobError naming file and line).
 */
export async function* readCsvBatches(source: Readable, fileName: string, options: CsvOptions = {}): AsyncGenerator<CsvBatch> {
  const { onHeader, ...csv } = options;
  const parser = new CsvChunkParser(csv);
  let header: string[] | undefined;
  const batchOf = ({ records, lines }: { records: string[][]; lines: number[] }): CsvBatch | undefined => {
    let first = 0;
    if (!header && records.length > 0) {
      header = records[0].map((column) => column.trim());
      onHeader?.(header);
      first = 1;
    }
    if (records.length === first) return undefined;
    const data = first === 0 ? records : records.slice(first);
    const dataLines = first === 0 ? lines : lines.slice(first);
    const width = (header as string[]).length;
    let problems: (string | undefined)[] | undefined;
    for (let index = 0; index < data.length; index++) {
      const fields = data[index].length;
      if (fields !== width) (problems ??= [])[index] = `expected ${width} fields, found ${fields}`;
    }
    return problems ? { rows: data, lines: dataLines, problems } : { rows: data, lines: dataLines };
  };
  try {
    for await (const chunk of source as AsyncIterable<Buffer | string>) {
      const batch = batchOf(parser.push(chunk, false));
      if (batch) yield batch;
    }
    const last = batchOf(parser.push(undefined, true));
    if (last) yield last;
  } catch (error) {
    rethrowTransient('object store', error);
    const reason = `${fileName} is not a readable CSV: ${(error as Error).message}`;
    throw new PermanentJobError(reason, { errors: [{ file: fileName, line: (error as { lines?: number }).lines ?? 0, reason }] });
  }
}

/**
 * Streams the data rows of one CSV (RFC 4180, header row) as objects keyed by the header.
 * A CSV that cannot be parsed at all fails the file (a PermanentJobError naming file and line).
 */
export async function* readCsvRows(source: Readable, fileName: string, options: CsvOptions = {}): AsyncGenerator<CsvRecord> {
  let header: string[] = [];
  const onHeader = (found: string[]) => {
    header = found;
    options.onHeader?.(found);
  };
  for await (const { rows: records, lines, problems } of readCsvBatches(source, fileName, { ...options, onHeader })) {
    for (let index = 0; index < records.length; index++) {
      const problem = problems?.[index];
      if (problem !== undefined) {
        yield { row: {}, line: lines[index], problem };
        continue;
      }
      const record = records[index];
      // fromEntries defines own properties: a column named __proto__ stays a plain field.
      yield { row: Object.fromEntries(header.map((column, at) => [column, record[at]])), line: lines[index] };
    }
  }
}
