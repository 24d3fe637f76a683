/**
 * Writes FOCUS cost-and-usage files for tests and benchmarks, streaming (memory stays flat
 * whatever --rows is), and prints the file's own sums, added exactly:
 *   npm run focus:generate -- --version 1.2 --rows 100000 --format parquet --compression zstd \
 *     --providers aws,azure,oci,gcp --periods 202409,202410 --nulls mixed --out focus.parquet [--sums sums.json]
 * Formats: csv, csv.gz, parquet (Snappy or ZSTD). --nulls says how CSV null cells are written:
 * the text NULL, empty, or mixed (both, by row). See focus-rows.ts for the edges every file holds.
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import { finished } from 'node:stream/promises';
import { FOCUS_VERSIONS, focusColumnOf, FocusVersion } from '../../apps/costasset/src/imports/map/focus-columns';
import { ParquetCodec, ParquetColumn, ParquetOutput } from '../../apps/costasset/src/focus-export/parquet-output';
import { csvLine } from '../gpd/gpd-content';
import { FocusRow, focusRow, FocusSums, FocusSumsReport, headerOf, NullStyle, PROVIDERS, RowOptions } from './focus-rows';

export type FocusFileFormat = 'csv' | 'csv.gz' | 'parquet';

export interface GenerateFocusOptions extends Omit<RowOptions, 'version'> {
  version: FocusVersion;
  format: FocusFileFormat;
  out: string;
  /** Parquet codec. */
  compression?: 'snappy' | 'zstd';
  nulls?: NullStyle;
  /** Rows per Parquet row group. */
  rowGroupSize?: number;
}

async function write(stream: Writable, chunk: string | Buffer): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

function nullCell(style: NullStyle, index: number): string {
  return style === 'NULL' || (style === 'mixed' && index % 2 === 0) ? 'NULL' : '';
}

async function writeCsv(options: GenerateFocusOptions, rows: Iterable<[number, FocusRow]>): Promise<void> {
  const file = createWriteStream(options.out);
  const gzip = options.format === 'csv.gz' ? createGzip() : undefined;
  gzip?.pipe(file);
  const target: Writable = gzip ?? file;
  const header = headerOf(options.version);
  await write(target, csvLine(header));
  for (const [index, row] of rows) {
    await write(target, csvLine(header.map((column) => row[column] ?? nullCell(options.nulls ?? 'mixed', index))));
  }
  target.end();
  await finished(file);
}

/** Parquet columns typed as providers write them: amounts as DOUBLE, datetimes as TIMESTAMP, the rest as strings. */
function parquetColumns(version: FocusVersion): ParquetColumn[] {
  return headerOf(version).map((name) => {
    const kind = focusColumnOf(name)?.kind;
    return { name, type: kind === 'decimal' ? 'DOUBLE' : kind === 'date' ? 'TIMESTAMP' : 'STRING' };
  });
}

function parquetValue(column: ParquetColumn, cell: string | null): unknown {
  if (cell === null) return null;
  if (column.type === 'DOUBLE') return Number(cell);
  if (column.type === 'TIMESTAMP') return new Date(/[zZ]$/.test(cell) ? cell : `${cell.replace(' ', 'T')}Z`);
  return cell;
}

let zstd: Promise<(input: Uint8Array) => Uint8Array> | undefined;

/** The ZSTD compressor, initialized once per process (initializing the WebAssembly module again corrupts later output). */
export function zstdCompressor(): Promise<(input: Uint8Array) => Uint8Array> {
  zstd ??= (async () => {
    const module = (await import('@bokuweb/zstd-wasm')) as {
      init(): Promise<void>;
      compress(input: Uint8Array, level?: number): Uint8Array;
    };
    await module.init();
    // the result is a view of the WebAssembly memory, which the next call overwrites: copy it
    return (input: Uint8Array) => Uint8Array.from(module.compress(input, 3));
  })();
  return zstd;
}

async function writeParquet(options: GenerateFocusOptions, rows: Iterable<[number, FocusRow]>): Promise<void> {
  const file = createWriteStream(options.out);
  const columns = parquetColumns(options.version);
  const codec: ParquetCodec = options.compression === 'zstd' ? 'ZSTD' : 'SNAPPY';
  const output = new ParquetOutput(columns, (chunk) => write(file, chunk), {
    codec,
    compressors: codec === 'ZSTD' ? { ZSTD: await zstdCompressor() } : {},
    metadata: { FocusVersion: options.version, DataGenerator: 'corelite tools/focus' },
  });
  const groupSize = options.rowGroupSize ?? 10_000;
  let group: Record<string, unknown>[] = [];
  for (const [, row] of rows) {
    group.push(Object.fromEntries(columns.map((column) => [column.name, parquetValue(column, row[column.name] ?? null)])));
    if (group.length >= groupSize) {
      await output.writeRows(group);
      group = [];
    }
  }
  await output.writeRows(group);
  await output.finish();
  file.end();
  await finished(file);
}

/** Writes the file; answers its exact sums. */
export async function generateFocus(options: GenerateFocusOptions): Promise<FocusSumsReport> {
  const unknown = options.providers.filter((provider) => !PROVIDERS[provider]);
  if (unknown.length) throw new Error(`unknown provider(s) ${unknown.join(', ')}; known: ${Object.keys(PROVIDERS).join(', ')}`);
  const sums = new FocusSums();
  function* rows(): Generator<[number, FocusRow]> {
    for (let index = 0; index < options.rows; index++) {
      const row = focusRow(index, options);
      sums.add(row);
      yield [index, row];
    }
  }
  if (options.format === 'parquet') await writeParquet(options, rows());
  else await writeCsv(options, rows());
  return sums.report();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      version: { type: 'string', default: '1.2' },
      rows: { type: 'string', default: '1000' },
      format: { type: 'string', default: 'csv' },
      compression: { type: 'string', default: 'snappy' },
      providers: { type: 'string', default: 'aws,azure,oci,gcp' },
      periods: { type: 'string', default: '202409,202410' },
      nulls: { type: 'string', default: 'mixed' },
      'row-group': { type: 'string', default: '10000' },
      out: { type: 'string' },
      sums: { type: 'string' },
    },
  });
  const version = values.version as FocusVersion;
  if (!FOCUS_VERSIONS.includes(version)) throw new Error(`--version takes one of ${FOCUS_VERSIONS.join(', ')}`);
  const format = values.format as FocusFileFormat;
  if (!['csv', 'csv.gz', 'parquet'].includes(format)) throw new Error('--format takes csv, csv.gz or parquet');
  if (!['snappy', 'zstd'].includes(values.compression as string)) throw new Error('--compression takes snappy or zstd');
  if (!['NULL', 'empty', 'mixed'].includes(values.nulls as string)) throw new Error('--nulls takes NULL, empty or mixed');
  const periods = (values.periods as string).split(',').map((period) => period.trim());
  if (periods.some((period) => !/^\d{4}(0[1-9]|1[0-2])$/.test(period))) throw new Error('--periods takes YYYYMM values');
  const rows = Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1) throw new Error('--rows takes a positive whole number');
  const out = values.out ?? `focus-${version}.${format}`;
  const report = await generateFocus({
    version,
    format,
    rows,
    periods,
    out,
    providers: (values.providers as string)
      .split(',')
      .map((provider) => provider.trim())
      .filter(Boolean),
    compression: values.compression as 'snappy' | 'zstd',
    nulls: values.nulls as NullStyle,
    rowGroupSize: Number(values['row-group']),
  });
  const json = JSON.stringify(report, null, 2);
  if (values.sums) writeFileSync(values.sums, `${json}\n`);
  else process.stdout.write(`${json}\n`);
  process.stderr.write(`${out}: ${rows} rows of FOCUS ${version} (${format})\n`);
}

if (require.main === module) {
  main().catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
