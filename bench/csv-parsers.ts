/**
 * `npm run bench:csv-parsers -- [--rows 500000] [--repeat 2]`
 * Which streaming CSV parser should read FOCUS CSV.gz files (issue 22)? Generates a FOCUS 1.2
 * CSV.gz file (tools/focus, as bench:focus does), then, in one run, measures rows/s of gunzip alone
 * and of gunzip + each parser (records as arrays of strings, header included), best of --repeat,
 * and the product's own reader (readCsvRows: csv-parse + row objects keyed by the header).
 * Before measuring, checks that every parser answers the records csv-parse answers with the
 * product's options (bom, relax_column_count, skip_empty_lines) on a file of the cases our FOCUS
 * tests and exports hold (BOM, CRLF and LF, quoted commas, doubled quotes, JSON Tags, newlines in
 * quotes, empty and quoted-empty fields, a short row, blank lines, no final newline, multi-byte
 * characters), fed whole and in chunks of 1, 3, 7 and 64 bytes, and on the first rows of the
 * generated file. Candidates that are not installed are skipped: measure them with
 * `npm install --no-save papaparse @fast-csv/parse csv-parser udsv` (and remove them afterwards),
 * or point CSV_CANDIDATES at a folder holding their node_modules.
 */
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { isDeepStrictEqual } from 'node:util';
import { parse as csvParse } from 'csv-parse';
import { readCsvRows } from '../apps/costasset/src/imports/read/csv-rows';
import { generateFocus } from '../tools/focus/generate';
import { numberArg } from './support/stats';

type Records = AsyncIterable<string[]>;

interface Candidate {
  name: string;
  /** npm package the parser comes from. */
  pkg: string;
  /** The records of a stream of bytes (UTF-8), header included, BOM removed, blank lines skipped. */
  records(source: Readable, lib: unknown): Records;
}

/** A candidate from the project's node_modules, else from CSV_CANDIDATES' (loaded by name: none is a dependency). */
function load(pkg: string): unknown {
  const places = [__filename, ...(process.env.CSV_CANDIDATES ? [join(process.env.CSV_CANDIDATES, 'node_modules', 'index.js')] : [])];
  for (const place of places) {
    try {
      return createRequire(place)(pkg) as unknown;
    } catch {
      // not installed there
    }
  }
  return undefined;
}

/** UTF-8 bytes to strings, never splitting a character (string parsers are given these). */
function utf8(): Transform {
  const decoder = new StringDecoder('utf8');
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding, done) {
      const text = decoder.write(chunk);
      done(null, text.length ? text : undefined);
    },
    flush(done) {
      const rest = decoder.end();
      done(null, rest.length ? rest : undefined);
    },
  });
}

/** Holds text until the first row delimiter has come (parsers that guess it from their first chunk). */
function firstRowWhole(): Transform {
  let head: string | undefined = '';
  return new Transform({
    objectMode: true,
    transform(text: string, _encoding, done) {
      if (head === undefined) return done(null, text);
      head += text;
      if (!/[\r\n]/.test(head.slice(0, -1))) return done();
      const whole = head;
      head = undefined;
      done(null, whole);
    },
    flush(done) {
      done(null, head || undefined);
    },
  });
}

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

interface PapaLike {
  NODE_STREAM_INPUT: unknown;
  parse(input: unknown, config: Record<string, unknown>): NodeJS.ReadWriteStream;
}
interface FastCsvLike {
  parse(options: Record<string, unknown>): NodeJS.ReadWriteStream;
}
type CsvParserLike = (options: Record<string, unknown>) => NodeJS.ReadWriteStream;
interface UdsvParser {
  chunk(text: string, format: unknown, onRow?: (row: string[]) => boolean): void;
  end(): void;
  stringArrs: unknown;
}
interface UdsvLike {
  inferSchema(text: string, options?: Record<string, unknown>): { cols: unknown[] };
  initParser(schema: unknown): UdsvParser;
}

const CANDIDATES: Candidate[] = [
  {
    name: 'csv-parse (current)',
    pkg: 'csv-parse',
    records: (source) =>
      source.pipe(csvParse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 1024 * 1024 })),
  },
  {
    name: 'papaparse',
    pkg: 'papaparse',
    async *records(source, lib) {
      const papa = lib as PapaLike;
      let first = true;
      const parser = papa.parse(papa.NODE_STREAM_INPUT, { skipEmptyLines: true });
      for await (const record of source.pipe(utf8()).pipe(firstRowWhole()).pipe(parser) as Records) {
        if (first && record.length) record[0] = stripBom(record[0]);
        first = false;
        yield record;
      }
    },
  },
  {
    name: '@fast-csv/parse',
    pkg: '@fast-csv/parse',
    async *records(source, lib) {
      let first = true;
      for await (const record of source.pipe((lib as FastCsvLike).parse({ ignoreEmpty: true })) as Records) {
        if (first && record.length) record[0] = stripBom(record[0]);
        first = false;
        yield record;
      }
    },
  },
  {
    name: 'csv-parser',
    pkg: 'csv-parser',
    async *records(source, lib) {
      let first = true;
      // headers: false answers objects keyed 0..n-1; the records' own arrays are not exposed
      for await (const row of source.pipe((lib as CsvParserLike)({ headers: false })) as AsyncIterable<Record<string, string>>) {
        const record = Object.values(row);
        if (first && record.length) record[0] = stripBom(record[0]);
        first = false;
        yield record;
      }
    },
  },
  {
    name: 'udsv',
    pkg: 'udsv',
    async *records(source, lib) {
      const udsv = lib as UdsvLike;
      let parser: UdsvParser | undefined;
      let head = '';
      let ready: string[][] = [];
      const take = (row: string[]) => {
        ready.push(row);
        return true;
      };
      for await (const text of source.pipe(utf8()) as AsyncIterable<string>) {
        if (!parser) {
          // inferSchema needs the whole first row in its first chunk
          head += text;
          if (!/[\r\n]/.test(head)) continue;
          parser = udsv.initParser(udsv.inferSchema(stripBom(head), { header: () => [] }));
          parser.chunk(stripBom(head), parser.stringArrs, take);
        } else parser.chunk(text, parser.stringArrs, take);
        if (ready.length) {
          const out = ready;
          ready = [];
          yield* out;
        }
      }
      if (!parser && head) {
        parser = udsv.initParser(udsv.inferSchema(`${stripBom(head)}\n`, { header: () => [] }));
        parser.chunk(stripBom(head), parser.stringArrs, take);
      }
      parser?.end();
      yield* ready;
    },
  },
];

/** The cases of our FOCUS tests and of real exports, as [file text, the records it holds]. */
function edgeCases(eol: '\r\n' | '\n'): { text: string; expected: string[][] } {
  const rows: [string, string[]][] = [
    ['BilledCost,BillingCurrency,ProviderName,Tags,x_Note', ['BilledCost', 'BillingCurrency', 'ProviderName', 'Tags', 'x_Note']],
    ['1.5,USD,AWS,,', ['1.5', 'USD', 'AWS', '', '']],
    [
      '8E-7,EUR,Microsoft,"{""user:team"":""team-1"",""env"":""prod"",""flagged"":true,"" spaced key"":""x""}","café ☕, ""quoted"""',
      ['8E-7', 'EUR', 'Microsoft', '{"user:team":"team-1","env":"prod","flagged":true," spaced key":"x"}', 'café ☕, "quoted"'],
    ],
    ['NULL,USD,"",NULL,""', ['NULL', 'USD', '', 'NULL', '']],
    [`-0.25,USD,Oracle,,"two${eol}lines, and ""more"""`, ['-0.25', 'USD', 'Oracle', '', `two${eol}lines, and "more"`]],
    ['2,USD,Google Cloud,"{}","a\nlf only"', ['2', 'USD', 'Google Cloud', '{}', 'a\nlf only']],
    ['1,acc-1,USD', ['1', 'acc-1', 'USD']],
    ['', []],
    [' 3 ,USD, AWS ,," spaced "', [' 3 ', 'USD', ' AWS ', '', ' spaced ']],
    ['4,USD,AWS,"{""k"":""v,w""}",€ ✓ 漢字', ['4', 'USD', 'AWS', '{"k":"v,w"}', '€ ✓ 漢字']],
    ['5,USD,AWS,,"""lead and trail"""', ['5', 'USD', 'AWS', '', '"lead and trail"']],
  ];
  const text = '\ufeff' + rows.map(([line]) => line).join(eol) + eol + eol + '6,USD,AWS,,last without newline';
  const expected = rows.filter(([line]) => line !== '').map(([, record]) => record);
  expected.push(['6', 'USD', 'AWS', '', 'last without newline']);
  return { text, expected };
}

async function collect(records: Records): Promise<string[][]> {
  const all: string[][] = [];
  for await (const record of records) all.push([...record]);
  return all;
}

function chunked(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks, { objectMode: false });
}

function firstDifference(got: string[][], expected: string[][]): string {
  for (let at = 0; at < Math.max(got.length, expected.length); at++)
    if (!isDeepStrictEqual(got[at], expected[at]))
      return `record ${at}: got ${JSON.stringify(got[at])}, expected ${JSON.stringify(expected[at])}`;
  return '';
}

async function correctness(candidate: Candidate, lib: unknown, sample: Buffer, sampleRecords: string[][]): Promise<string[]> {
  const failures: string[] = [];
  for (const eol of ['\r\n', '\n'] as const) {
    const { text, expected } = edgeCases(eol);
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [bytes.length, 1, 3, 7, 64]) {
      try {
        const got = await collect(candidate.records(chunked(bytes, size), lib));
        const difference = firstDifference(got, expected);
        if (difference) failures.push(`${eol === '\n' ? 'LF' : 'CRLF'} file, ${size}-byte chunks: ${difference}`);
      } catch (error) {
        failures.push(`${eol === '\n' ? 'LF' : 'CRLF'} file, ${size}-byte chunks: threw ${(error as Error).message}`);
      }
    }
  }
  const got = await collect(candidate.records(chunked(sample, 65_536), lib));
  const difference = firstDifference(got, sampleRecords);
  if (difference) failures.push(`generated FOCUS file: ${difference}`);
  return failures;
}

async function timed(count: () => Promise<number>, repeat: number): Promise<{ rows: number; seconds: number }> {
  let best = Number.POSITIVE_INFINITY;
  let rows = 0;
  for (let run = 0; run < repeat; run++) {
    const started = performance.now();
    rows = await count();
    best = Math.min(best, (performance.now() - started) / 1000);
  }
  return { rows, seconds: best };
}

async function main(): Promise<void> {
  const rows = numberArg('rows', 500_000);
  const repeat = numberArg('repeat', 2);
  const dir = mkdtempSync(join(tmpdir(), 'bench-csv-parsers-'));
  try {
    const file = join(dir, 'focus.csv.gz');
    const sampleFile = join(dir, 'sample.csv');
    const options = { version: '1.2' as const, providers: ['aws', 'azure', 'oci', 'gcp'], periods: ['202409', '202410', '202411'] };
    await generateFocus({ ...options, format: 'csv.gz', rows, out: file });
    await generateFocus({ ...options, format: 'csv', nulls: 'mixed', rows: 20_000, out: sampleFile });
    const sample = await collectBytes(createReadStream(sampleFile));
    const sampleRecords = await collect(CANDIDATES[0].records(Readable.from([sample]), undefined));
    console.log(`${rows.toLocaleString()} rows, ${(statSync(file).size / 1e6).toFixed(1)} MB gzipped; best of ${repeat}\n`);

    const loaded = CANDIDATES.map((candidate) => ({ candidate, lib: load(candidate.pkg) }));
    const present = loaded.filter(({ lib }) => lib !== undefined);
    for (const { candidate } of loaded.filter(({ lib }) => lib === undefined)) console.log(`${candidate.name}: not installed, skipped`);
    const details: string[] = [];
    console.log('\n| parser | correctness |\n|---|---|');
    for (const { candidate, lib } of present) {
      const failures = await correctness(candidate, lib, sample, sampleRecords);
      console.log(`| ${candidate.name} | ${failures.length ? `${failures.length} of 11 checks differ` : 'identical in all 11 checks'} |`);
      for (const failure of failures) details.push(`${candidate.name}: ${failure}`);
    }

    for (const detail of details) console.log(`  ${detail.length > 400 ? `${detail.slice(0, 400)}…` : detail}`);

    const results: [string, { rows: number; seconds: number }][] = [];
    results.push([
      'gunzip alone',
      await timed(async () => {
        let bytes = 0;
        for await (const chunk of createReadStream(file).pipe(createGunzip())) bytes += (chunk as Buffer).length;
        return bytes > 0 ? rows + 1 : 0;
      }, repeat),
    ]);
    for (const { candidate, lib } of present) {
      results.push([
        `gunzip + ${candidate.name}`,
        await timed(async () => {
          let count = 0;
          for await (const _record of candidate.records(createReadStream(file).pipe(createGunzip()), lib)) count++;
          return count;
        }, repeat),
      ]);
    }
    results.push([
      'gunzip + readCsvRows (the product reader: csv-parse + row objects)',
      await timed(async () => {
        let count = 1;
        for await (const _row of readCsvRows(createReadStream(file).pipe(createGunzip()), 'focus.csv.gz')) count++;
        return count;
      }, repeat),
    ]);
    console.log('\n| stage | records | s | records/s |\n|---|---|---|---|');
    for (const [label, { rows: count, seconds }] of results)
      console.log(`| ${label} | ${count.toLocaleString()} | ${seconds.toFixed(2)} | ${Math.round(count / seconds).toLocaleString()} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function collectBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

main().catch((error: Error) => {
  console.error(`bench:csv-parsers: ${error.stack ?? error.message}`);
  process.exit(1);
});
