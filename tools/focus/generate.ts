/**
 * Writes FOCUS cost-and-usage files for tests and benchmarks, streaming (memory stays flat
 * whatever --rows is), and prints the file's own sums, added exactly:
 *   npm run focus:generate -- --version 1.2 --rows 100000 --format parquet --compression zstd \
 *     --providers aws,azure,oci,gcp --periods 202409,202410 --nulls mixed --out focus.parquet [--sums sums.json]
 * Formats: csv, csv.gz, parquet (Snappy or ZSTD). --nulls says how CSV null cells are written:
 * the text NULL, empty, or mixed (both, by row). See focus-rows.ts for the edges every file holds.
 *
 * With --layout aws-data-exports|azure-exports it writes instead a bucket tree as that cloud lays out
 * its exports, several executions per billing period, and <out>/expected.json (export-layouts.ts):
 *   npm run focus:generate -- --layout aws-data-exports --out dir [--periods 2026-09,2026-10] [--executions 3]
 *     [--format parquet|csv.gz] [--parts 2] [--export-name corelite-focus] [--bucket billing-exports]
 *     [--prefix exports] [--rows 1000] [--seed 1] [--version 1.0]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FOCUS_VERSIONS, FocusVersion } from '../../apps/costasset/src/imports/map/focus-columns';
import { EXPORT_LAYOUTS, ExportLayoutName, LayoutFormat, writeExportLayout } from './export-layouts';
import { FocusFileFormat, FocusFileOptions, writeFocusFile } from './focus-files';
import { FocusRow, focusRow, FocusSums, FocusSumsReport, NullStyle, PROVIDERS, RowOptions } from './focus-rows';

export type { FocusFileFormat } from './focus-files';
export { zstdCompressor } from './focus-files';

export type GenerateFocusOptions = Omit<RowOptions, 'version'> & FocusFileOptions;

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
  await writeFocusFile(options, rows());
  return sums.report();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      version: { type: 'string' },
      rows: { type: 'string', default: '1000' },
      format: { type: 'string' },
      compression: { type: 'string', default: 'snappy' },
      providers: { type: 'string' },
      periods: { type: 'string' },
      nulls: { type: 'string' },
      'row-group': { type: 'string', default: '10000' },
      out: { type: 'string' },
      sums: { type: 'string' },
      // --layout: a bucket tree as a cloud writes its exports (export-layouts.ts)
      layout: { type: 'string' },
      executions: { type: 'string', default: '3' },
      parts: { type: 'string', default: '2' },
      'export-name': { type: 'string', default: 'corelite-focus' },
      bucket: { type: 'string', default: 'billing-exports' },
      prefix: { type: 'string', default: 'exports' },
      seed: { type: 'string', default: '1' },
    },
  });
  const layout = values.layout as ExportLayoutName | undefined;
  const version = (values.version ?? (layout ? '1.0' : '1.2')) as FocusVersion;
  if (!FOCUS_VERSIONS.includes(version)) throw new Error(`--version takes one of ${FOCUS_VERSIONS.join(', ')}`);
  const nulls = (values.nulls ?? (layout ? 'empty' : 'mixed')) as NullStyle;
  if (!['NULL', 'empty', 'mixed'].includes(nulls)) throw new Error('--nulls takes NULL, empty or mixed');
  const rows = Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1) throw new Error('--rows takes a positive whole number');
  if (layout !== undefined) return writeLayout(layout, values, { version, nulls, rows });

  const format = (values.format ?? 'csv') as FocusFileFormat;
  if (!['csv', 'csv.gz', 'parquet'].includes(format)) throw new Error('--format takes csv, csv.gz or parquet');
  if (!['snappy', 'zstd'].includes(values.compression as string)) throw new Error('--compression takes snappy or zstd');
  const periods = (values.periods ?? '202409,202410').split(',').map((period) => period.trim());
  if (periods.some((period) => !/^\d{4}(0[1-9]|1[0-2])$/.test(period))) throw new Error('--periods takes YYYYMM values');
  const out = values.out ?? `focus-${version}.${format}`;
  const report = await generateFocus({
    version,
    format,
    rows,
    periods,
    out,
    providers: (values.providers ?? 'aws,azure,oci,gcp')
      .split(',')
      .map((provider) => provider.trim())
      .filter(Boolean),
    compression: values.compression as 'snappy' | 'zstd',
    nulls,
    rowGroupSize: Number(values['row-group']),
  });
  const json = JSON.stringify(report, null, 2);
  if (values.sums) writeFileSync(values.sums, `${json}\n`);
  else process.stdout.write(`${json}\n`);
  process.stderr.write(`${out}: ${rows} rows of FOCUS ${version} (${format})\n`);
}

/** `--layout`: the tree and `<out>/expected.json`; prints the expected totals. */
async function writeLayout(
  layout: ExportLayoutName,
  values: Record<string, string | undefined>,
  common: { version: FocusVersion; nulls: NullStyle; rows: number },
): Promise<void> {
  if (!EXPORT_LAYOUTS.includes(layout)) throw new Error(`--layout takes ${EXPORT_LAYOUTS.join(' or ')}`);
  if (!values.out) throw new Error('--layout needs --out <dir>');
  if (values.providers !== undefined) throw new Error('--providers does not go with --layout (the layout is one provider)');
  if (values.compression !== 'snappy') throw new Error('a layout writes Parquet with Snappy, as the providers do');
  const format = (values.format ?? (layout === 'aws-data-exports' ? 'parquet' : 'csv.gz')) as LayoutFormat;
  if (!['parquet', 'csv.gz'].includes(format)) throw new Error('with --layout, --format takes parquet or csv.gz');
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error('--seed takes a whole number');
  const expected = await writeExportLayout({
    layout,
    out: values.out,
    periods: (values.periods ?? '2026-09,2026-10').split(',').filter((period) => period.trim()),
    executions: Number(values.executions),
    format,
    parts: Number(values.parts),
    exportName: values['export-name'] as string,
    bucket: values.bucket as string,
    prefix: values.prefix as string,
    rows: common.rows,
    seed,
    version: common.version,
    nulls: common.nulls,
    rowGroupSize: Number(values['row-group']),
  });
  const totals = Object.fromEntries(
    Object.entries(expected.billingPeriods).map(([period, { latest, allExecutions }]) => [period, { latest, allExecutions }]),
  );
  process.stdout.write(`${JSON.stringify(totals, null, 2)}\n`);
  process.stderr.write(
    `${values.out}: ${layout} export '${expected.exportName}', ${Object.keys(totals).length} billing period(s) × ` +
      `${values.executions} executions × ${values.parts} ${format} files, and expected.json\n`,
  );
}

if (require.main === module) {
  main().catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
