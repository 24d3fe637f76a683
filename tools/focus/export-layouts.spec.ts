import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import Papa from 'papaparse';
import { ExportLayoutName, LayoutExpectation, LayoutFormat, restated, writeExportLayout } from './export-layouts';
import { scaled, unscaled } from './focus-rows';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

/** Every file under `dir`, relative and `/`-separated. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();

type Cells = Record<string, string | null>;

/** A data file's rows, read back as the import would: amounts as decimal text. */
async function rowsOf(file: string): Promise<Cells[]> {
  const bytes = readFileSync(file);
  if (file.endsWith('.parquet')) {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const rows = (await parquetReadObjects({ file: buffer, columns: ['BilledCost', 'EffectiveCost', 'ChargeDescription'] })) as Record<
      string,
      unknown
    >[];
    return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? null : String(value)])));
  }
  const parsed = Papa.parse<Cells>(gunzipSync(bytes).toString('utf8'), { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

const sum = (rows: Cells[], column: string) => unscaled(rows.reduce((total, row) => total + (row[column] ? scaled(row[column]) : 0n), 0n));

const PATTERNS: Record<ExportLayoutName, (format: LayoutFormat) => { data: RegExp; manifest: RegExp }> = {
  'aws-data-exports': (format) => ({
    data: new RegExp(
      `^corelite-focus/data/BILLING_PERIOD=(2026-09|2026-10)/(${UUID})/corelite-focus-0000[1-3]\\.` +
        `${format === 'parquet' ? 'snappy\\.parquet' : 'csv\\.gz'}$`,
    ),
    manifest: new RegExp(`^corelite-focus/metadata/BILLING_PERIOD=(2026-09|2026-10)/(${UUID})/corelite-focus-Manifest\\.json$`),
  }),
  'azure-exports': (format) => ({
    data: new RegExp(
      `^corelite-focus/(20260901-20260930|20261001-20261031)/(${UUID})/part_0_000[1-3]\\.${format === 'parquet' ? 'parquet' : 'csv\\.gz'}$`,
    ),
    manifest: new RegExp(`^corelite-focus/(20260901-20260930|20261001-20261031)/(${UUID})/manifest\\.json$`),
  }),
};

describe.each([
  ['aws-data-exports', 'parquet'],
  ['aws-data-exports', 'csv.gz'],
  ['azure-exports', 'csv.gz'],
  ['azure-exports', 'parquet'],
] as [ExportLayoutName, LayoutFormat][])('%s as %s', (layout, format) => {
  let out: string;
  let expected: LayoutExpectation;
  let files: string[];

  beforeAll(async () => {
    out = mkdtempSync(path.join(tmpdir(), 'focus-layout-'));
    expected = await writeExportLayout({
      layout,
      out,
      format,
      periods: ['202610', '2026-09'],
      executions: 3,
      parts: 3,
      exportName: 'corelite-focus',
      bucket: 'billing-exports',
      prefix: '/exports/',
      rows: 60,
      seed: 7,
      version: '1.0',
      nulls: 'empty',
    });
    files = filesUnder(out);
  });

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  const manifestOf = (relative: string) => JSON.parse(readFileSync(path.join(out, relative), 'utf8'));

  it('lays the files out as the provider does, three files and a manifest per execution, expected.json beside the export', () => {
    const { data, manifest } = PATTERNS[layout](format);
    expect(files.filter((file) => !data.test(file) && !manifest.test(file))).toEqual(['expected.json']);
    expect(files.filter((file) => manifest.test(file))).toHaveLength(2 * 3);
    expect(files.filter((file) => data.test(file))).toHaveLength(2 * 3 * 3);
    expect(Object.keys(expected.billingPeriods)).toEqual(['2026-09', '2026-10']);
    expect(JSON.parse(readFileSync(path.join(out, 'expected.json'), 'utf8'))).toEqual(expected);
  });

  it('names in each manifest exactly the data files of its execution, as the bucket will hold them', () => {
    for (const [period, { executions }] of Object.entries(expected.billingPeriods)) {
      let previous = '';
      for (const execution of executions) {
        const folder = path.posix.dirname(execution.manifest);
        const inFolder = files.filter((file) => file !== execution.manifest && PATTERNS[layout](format).data.test(file));
        const ofExecution = inFolder.filter((file) => file.includes(`/${execution.executionId}/`)).sort();
        expect(ofExecution).toEqual(execution.dataFiles);
        const body = manifestOf(execution.manifest);
        if (layout === 'aws-data-exports') {
          expect(folder).toBe(`corelite-focus/metadata/BILLING_PERIOD=${period}/${execution.executionId}`);
          expect(body.dataFiles).toEqual(ofExecution.map((file) => `s3://billing-exports/exports/${file}`));
          expect(body).toMatchObject({
            executionId: execution.executionId,
            exportName: 'corelite-focus',
            exportArn: expect.stringMatching(new RegExp(`^arn:aws:bcm-data-exports:us-east-1:123456789012:export/corelite-focus-${UUID}$`)),
            billingPeriod: {
              start: `${period}-01T00:00:00.000Z`,
              end: period === '2026-09' ? '2026-10-01T00:00:00.000Z' : '2026-11-01T00:00:00.000Z',
            },
          });
          expect(body.columns).toContainEqual({ name: 'BilledCost', type: 'decimal' });
          expect(body.deliveredAt > previous).toBe(true);
          previous = body.deliveredAt;
        } else {
          expect(folder).toBe(
            `corelite-focus/${period === '2026-09' ? '20260901-20260930' : '20261001-20261031'}/${execution.executionId}`,
          );
          expect(body.blobs.map((blob: { blobName: string }) => blob.blobName)).toEqual(ofExecution.map((file) => `exports/${file}`));
          const sizes = ofExecution.map((file) => readFileSync(path.join(out, file)).length);
          expect(body.blobs.map((blob: { byteCount: number }) => blob.byteCount)).toEqual(sizes);
          expect(body).toMatchObject({
            manifestVersion: '2024-04-01',
            blobCount: 3,
            byteCount: sizes.reduce((a, b) => a + b, 0),
            dataRowCount: execution.rows,
            exportConfig: { exportName: 'corelite-focus', type: 'FocusCost', dataVersion: '1.0r2', timeFrame: 'MonthToDate' },
            deliveryConfig: {
              partitionData: true,
              dataOverwriteBehavior: 'CreateNewReport',
              fileFormat: format === 'parquet' ? 'Parquet' : 'Csv',
              compressionMode: format === 'parquet' ? 'Snappy' : 'Gzip',
              rootFolderPath: 'exports',
            },
            runInfo: {
              executionType: 'Scheduled',
              runId: execution.executionId,
              startDate: `${period}-01T00:00:00`,
              endDate: period === '2026-09' ? '2026-09-30T00:00:00' : '2026-10-31T00:00:00',
            },
          });
          expect(body.runInfo.submittedTime > previous).toBe(true);
          previous = body.runInfo.submittedTime;
        }
      }
    }
  });

  it("gives the latest execution's rows, read back, exactly the totals of expected.json; all executions summed overcount", async () => {
    for (const { latest, allExecutions, executions } of Object.values(expected.billingPeriods)) {
      const last = executions[executions.length - 1];
      expect(last.executionId).toBe(latest.executionId);
      const rows = (await Promise.all(last.dataFiles.map((file) => rowsOf(path.join(out, file))))).flat();
      expect(rows).toHaveLength(60);
      expect({ rows: rows.length, billedCost: sum(rows, 'BilledCost'), effectiveCost: sum(rows, 'EffectiveCost') }).toEqual({
        rows: latest.rows,
        billedCost: latest.billedCost,
        effectiveCost: latest.effectiveCost,
      });
      expect(allExecutions.rows).toBe(executions.reduce((total, execution) => total + execution.rows, 0));
      expect(allExecutions.rows).toBeGreaterThan(latest.rows);
      expect(scaled(allExecutions.billedCost)).toBeGreaterThan(scaled(latest.billedCost));
      expect(scaled(allExecutions.effectiveCost)).toBeGreaterThan(scaled(latest.effectiveCost));
    }
  });

  it('makes each execution a snapshot: the earlier rows (some restated ×1.1) and rows of later days', async () => {
    const { executions } = expected.billingPeriods['2026-09'];
    const byDescription = async (files: string[]) =>
      new Map((await Promise.all(files.map((file) => rowsOf(path.join(out, file))))).flat().map((row) => [row.ChargeDescription, row]));
    const first = await byDescription(executions[0].dataFiles);
    const last = await byDescription(executions[2].dataFiles);
    expect(first.size).toBe(20);
    expect([...first.keys()].every((description) => last.has(description))).toBe(true);
    let changed = 0;
    for (const [description, row] of first) {
      const now = last.get(description) as Cells;
      if (now.BilledCost === row.BilledCost) continue;
      changed++;
      expect(scaled(now.BilledCost as string)).toBe(scaled(restated(row.BilledCost as string)));
    }
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(first.size);
  });
});

describe('layout rows', () => {
  it('restates an amount ×1.1, rounded to 12 decimals', () => {
    expect(restated('10')).toBe('11');
    expect(restated('0.000000123456')).toBe('0.000000135802');
    expect(restated('-2.5')).toBe('-2.75');
    expect(restated('8E-7')).toBe('0.00000088');
    expect(restated('0')).toBe('0');
  });

  it('are the same for the same seed, and others for another', async () => {
    const write = async (seed: number) => {
      const out = mkdtempSync(path.join(tmpdir(), 'focus-layout-'));
      try {
        const options = {
          periods: ['2026-09'],
          executions: 2,
          parts: 1,
          exportName: 'x',
          bucket: 'b',
          prefix: '',
          rows: 10,
          version: '1.0' as const,
        };
        return await writeExportLayout({ ...options, layout: 'azure-exports', out, format: 'csv.gz', seed });
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    };
    expect(await write(3)).toEqual(await write(3));
    expect((await write(4)).billingPeriods['2026-09'].latest).not.toEqual((await write(3)).billingPeriods['2026-09'].latest);
  });
});
