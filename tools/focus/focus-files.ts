/**
 * Writes FOCUS rows to one file, streaming: CSV (plain or gzip) or Parquet (Snappy or ZSTD). Shared
 * by the file generator (generate.ts) and the provider layouts (export-layouts.ts).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { finished } from 'node:stream/promises';
import { focusColumnOf, FocusVersion } from '../../apps/costasset/src/imports/map/focus-columns';
import { ParquetCodec, ParquetColumn, ParquetOutput } from '../../apps/costasset/src/focus-export/parquet-output';
import { csvLine } from '../gpd/gpd-content';
import { FocusRow, headerOf, NullStyle } from './focus-rows';

export type FocusFileFormat = 'csv' | 'csv.gz' | 'parquet';

export interface FocusFileOptions {
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

async function writeCsv(options: FocusFileOptions, rows: Iterable<[number, FocusRow]>): Promise<void> {
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

async function writeParquet(options: FocusFileOptions, rows: Iterable<[number, FocusRow]>): Promise<void> {
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

/** Writes `rows` (each with its index, which picks the null style of `mixed`) to `options.out`. */
export async function writeFocusFile(options: FocusFileOptions, rows: Iterable<[number, FocusRow]>): Promise<void> {
  if (options.format === 'parquet') await writeParquet(options, rows);
  else await writeCsv(options, rows);
}
