/**
 * FOCUS exports laid out as the clouds write them into a bucket, for the data connections' tests:
 * a directory tree to upload as it is under a prefix.
 *
 * - `aws-data-exports` (AWS Data Exports, "create new" delivery):
 *   `<export>/data/BILLING_PERIOD=YYYY-MM/<executionId>/<export>-00001.snappy.parquet` (or `.csv.gz`)
 *   and `<export>/metadata/BILLING_PERIOD=YYYY-MM/<executionId>/<export>-Manifest.json`.
 * - `azure-exports` (Azure Cost Management, FOCUS cost, partitioned, "create new report"):
 *   `<export>/<YYYYMMDD-YYYYMMDD>/<runId>/part_0_0001.csv.gz` (or `.parquet`) and `manifest.json` beside them.
 *
 * Each billing period has several executions; each is a full snapshot of the period as known then:
 * the earlier execution's rows (some restated: their amounts ×1.1) and the rows of the days since.
 * Only the latest execution of a period counts; summing them all overcounts, and `expected.json`
 * (written beside the tree, not in it) has both totals, added exactly.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { focusColumnOf, FocusVersion } from '../../apps/costasset/src/imports/map/focus-columns';
import { FocusFileFormat, writeFocusFile } from './focus-files';
import { FocusRow, focusRow, formatDate, headerOf, NullStyle, PROVIDERS, scaled, unscaled } from './focus-rows';

export const EXPORT_LAYOUTS = ['aws-data-exports', 'azure-exports'] as const;
export type ExportLayoutName = (typeof EXPORT_LAYOUTS)[number];
export type LayoutFormat = Extract<FocusFileFormat, 'parquet' | 'csv.gz'>;

export interface ExportLayoutOptions {
  layout: ExportLayoutName;
  /** The directory the tree is written to (what goes under `prefix` in the bucket). */
  out: string;
  /** Billing periods, `YYYY-MM` (or `YYYYMM`). */
  periods: string[];
  /** Executions (runs) per billing period. */
  executions: number;
  format: LayoutFormat;
  /** Data files per execution. */
  parts: number;
  exportName: string;
  /** The bucket of the AWS manifests' `s3://` URIs. */
  bucket: string;
  /** The folder of the bucket (container) the tree goes under: the URIs and blob names start with it. */
  prefix: string;
  /** Rows of a billing period's latest execution (the whole month); earlier executions hold fewer. */
  rows: number;
  /** Which rows are restated and the values of every row. */
  seed: number;
  version: FocusVersion;
  nulls?: NullStyle;
  rowGroupSize?: number;
}

export interface LayoutTotals {
  rows: number;
  /** Exact decimal sums. */
  billedCost: string;
  effectiveCost: string;
}

export interface LayoutExecution extends LayoutTotals {
  executionId: string;
  deliveredAt: string;
  /** Paths relative to the tree (`out`), `/`-separated. */
  manifest: string;
  dataFiles: string[];
}

export interface LayoutExpectation {
  layout: ExportLayoutName;
  exportName: string;
  bucket: string;
  prefix: string;
  format: LayoutFormat;
  seed: number;
  /** Per billing period (`YYYY-MM`): the latest execution alone (what counts), every execution summed (an overcount), each execution. */
  billingPeriods: Record<
    string,
    { latest: LayoutTotals & { executionId: string }; allExecutions: LayoutTotals; executions: LayoutExecution[] }
  >;
}

/** The amounts a restatement changes. */
const RESTATED = ['BilledCost', 'EffectiveCost', 'ListCost', 'ContractedCost', 'PricingCurrencyEffectiveCost'];
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const AWS_REGION = 'us-east-1';
const AZURE_SCOPE = '/subscriptions/00000000-0000-0000-0000-000000000000';
const AZURE_STORAGE_ACCOUNT = `${AZURE_SCOPE}/resourceGroups/billing/providers/Microsoft.Storage/storageAccounts/devstoreaccount1`;

/** `YYYY-MM` from `YYYY-MM` or `YYYYMM`. */
export function billingPeriodOf(text: string): string {
  const match = /^(\d{4})-?(0[1-9]|1[0-2])$/.exec(text.trim());
  if (!match) throw new Error(`'${text}' is not a billing period (YYYY-MM)`);
  return `${match[1]}-${match[2]}`;
}

const monthStart = (period: string, offset = 0) =>
  new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)) - 1 + offset, 1));
const compactDay = (date: Date) => date.toISOString().slice(0, 10).replace(/-/g, '');

function digest(...parts: (string | number)[]): Buffer {
  return createHash('sha256').update(parts.join('|')).digest();
}

const hash32 = (...parts: (string | number)[]) => digest(...parts).readUInt32BE(0);

/** A version-4-shaped UUID that is a function of `parts`, so the same seed gives the same tree. */
function uuidOf(...parts: (string | number)[]): string {
  const bytes = digest(...parts).subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `value` ×1.1, rounded half away from zero to 12 decimals (so a Parquet DOUBLE still holds it exactly). */
export function restated(value: string): string {
  const times = (scaled(value) * 11n) / 10n; // exact: a value of at most 12 decimals is a multiple of 10 in 1e-20 units
  const unit = 10n ** 8n;
  const magnitude = ((times < 0n ? -times : times) + unit / 2n) / unit;
  return unscaled((times < 0n ? -magnitude : magnitude) * unit);
}

function parseCell(text: string): Date {
  return new Date(/[zZ]$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}

const styleOf = (text: string) => (text.includes(' ') ? 0 : /Z$/.test(text) ? 1 : 2);

interface PeriodPlan {
  period: string;
  start: Date;
  days: number;
  /** Rows of execution e (1-based) are the rows 0 … counts[e] - 1. */
  counts: number[];
  /** The first of the row numbers given to focusRow: a function of the seed and the period. */
  base: number;
}

function planPeriod(options: ExportLayoutOptions, period: string): PeriodPlan {
  const start = monthStart(period);
  const days = Math.round((monthStart(period, 1).getTime() - start.getTime()) / DAY_MS);
  const counts = [0];
  for (let execution = 1; execution <= options.executions; execution++) {
    counts.push(Math.ceil((options.rows * execution) / options.executions));
  }
  return { period, start, days, counts, base: hash32(options.seed, period, 'base') % 1_000_000_000 };
}

/** The execution a row first appears in (1-based): rows come in the order of their days. */
const firstExecution = (options: ExportLayoutOptions, row: number) => Math.floor((row * options.executions) / options.rows) + 1;

/** The execution from which row `row`'s amounts are restated, if any (a quarter of the rows a later execution holds too). */
function restatedFrom(options: ExportLayoutOptions, plan: PeriodPlan, row: number): number | undefined {
  const first = firstExecution(options, row);
  if (first >= options.executions) return undefined;
  const hash = hash32(options.seed, plan.period, row, 'restate');
  if (hash % 4 !== 0) return undefined;
  return first + 1 + (Math.floor(hash / 4) % (options.executions - first));
}

/** Row `row` of billing period `plan` as execution `execution` holds it. */
function rowAt(options: ExportLayoutOptions, plan: PeriodPlan, row: number, execution: number): FocusRow {
  const provider = options.layout === 'aws-data-exports' ? 'aws' : 'azure';
  const index = plan.base + row;
  const cells = focusRow(index, {
    version: options.version,
    providers: [provider],
    periods: [plan.period.replace('-', '')],
    rows: options.rows,
  });
  // charges of the period come day by day: row `row` is on day ⌊row × days / rows⌋ (a charge of
  // the previous month's last evening, billed in this one, stays where it is)
  const chargeStart = cells.ChargePeriodStart as string;
  if (parseCell(chargeStart).getTime() >= plan.start.getTime()) {
    const day = Math.floor((row * plan.days) / options.rows);
    const start = new Date(plan.start.getTime() + day * DAY_MS + (index % 24) * HOUR_MS);
    cells.ChargePeriodStart = formatDate(start, styleOf(chargeStart));
    cells.ChargePeriodEnd = formatDate(new Date(start.getTime() + HOUR_MS), styleOf(chargeStart));
  }
  const from = restatedFrom(options, plan, row);
  if (from !== undefined && execution >= from) {
    for (const column of RESTATED) {
      const value = cells[column];
      if (value) cells[column] = restated(value);
    }
  }
  return cells;
}

class Totals {
  rows = 0;
  private billed = 0n;
  private effective = 0n;

  add(row: FocusRow): void {
    this.rows++;
    this.billed += row.BilledCost ? scaled(row.BilledCost) : 0n;
    this.effective += row.EffectiveCost ? scaled(row.EffectiveCost) : 0n;
  }

  plus(other: Totals): void {
    this.rows += other.rows;
    this.billed += other.billed;
    this.effective += other.effective;
  }

  report(): LayoutTotals {
    return { rows: this.rows, billedCost: unscaled(this.billed), effectiveCost: unscaled(this.effective) };
  }
}

interface WrittenPart {
  /** Relative to `out`, `/`-separated. */
  relative: string;
  rows: number;
  bytes: number;
}

/** Writes the execution's rows split into `parts` files; answers them and adds the rows to `totals`. */
async function writeParts(
  options: ExportLayoutOptions,
  plan: PeriodPlan,
  execution: number,
  fileOf: (part: number) => string,
  totals: Totals,
): Promise<WrittenPart[]> {
  const count = plan.counts[execution];
  const written: WrittenPart[] = [];
  for (let part = 0; part < options.parts; part++) {
    const from = Math.floor((count * part) / options.parts);
    const to = Math.floor((count * (part + 1)) / options.parts);
    const relative = fileOf(part + 1);
    const file = path.join(options.out, ...relative.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    const rows = function* (): Generator<[number, FocusRow]> {
      for (let row = from; row < to; row++) {
        const cells = rowAt(options, plan, row, execution);
        totals.add(cells);
        yield [row, cells];
      }
    };
    await writeFocusFile(
      {
        version: options.version,
        format: options.format,
        out: file,
        compression: 'snappy',
        nulls: options.nulls,
        rowGroupSize: options.rowGroupSize,
      },
      rows(),
    );
    written.push({ relative, rows: to - from, bytes: statSync(file).size });
  }
  return written;
}

function writeJson(out: string, relative: string, body: unknown): void {
  const file = path.join(out, ...relative.split('/'));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
}

/** The manifest's column types: amounts `decimal`, datetimes `timestamp`, the rest `string`. */
function manifestColumns(version: FocusVersion): { name: string; type: string }[] {
  return headerOf(version).map((name) => {
    const kind = focusColumnOf(name)?.kind;
    return { name, type: kind === 'decimal' ? 'decimal' : kind === 'date' ? 'timestamp' : 'string' };
  });
}

/** When execution `execution` is delivered: a few hours after the last day it holds (the last one after the month closes). */
function deliveredAt(options: ExportLayoutOptions, plan: PeriodPlan, execution: number): Date {
  const daysKnown = Math.ceil((plan.days * execution) / options.executions);
  return new Date(plan.start.getTime() + daysKnown * DAY_MS + 6 * HOUR_MS + (execution - 1) * 60_000);
}

const inBucket = (prefix: string, relative: string) => (prefix ? `${prefix}/${relative}` : relative);

async function writeAwsExecution(
  options: ExportLayoutOptions,
  plan: PeriodPlan,
  execution: number,
  totals: Totals,
): Promise<LayoutExecution> {
  const name = options.exportName;
  const executionId = uuidOf(options.seed, options.layout, name, plan.period, execution);
  const folder = `BILLING_PERIOD=${plan.period}/${executionId}`;
  const extension = options.format === 'parquet' ? 'snappy.parquet' : 'csv.gz';
  const parts = await writeParts(
    options,
    plan,
    execution,
    (part) => `${name}/data/${folder}/${name}-${String(part).padStart(5, '0')}.${extension}`,
    totals,
  );
  const manifest = `${name}/metadata/${folder}/${name}-Manifest.json`;
  const delivered = deliveredAt(options, plan, execution).toISOString();
  const exportId = uuidOf(options.seed, name, 'export');
  writeJson(options.out, manifest, {
    executionId,
    exportArn: `arn:aws:bcm-data-exports:${AWS_REGION}:${PROVIDERS.aws.billingAccountId}:export/${name}-${exportId}`,
    columns: manifestColumns(options.version),
    dataFiles: parts.map((part) => `s3://${options.bucket}/${inBucket(options.prefix, part.relative)}`),
    billingPeriod: { start: plan.start.toISOString(), end: monthStart(plan.period, 1).toISOString() },
    exportName: name,
    deliveredAt: delivered,
  });
  return { executionId, deliveredAt: delivered, manifest, dataFiles: parts.map((part) => part.relative), ...totals.report() };
}

async function writeAzureExecution(
  options: ExportLayoutOptions,
  plan: PeriodPlan,
  execution: number,
  totals: Totals,
): Promise<LayoutExecution> {
  const name = options.exportName;
  const runId = uuidOf(options.seed, options.layout, name, plan.period, execution);
  const lastDay = new Date(monthStart(plan.period, 1).getTime() - DAY_MS);
  const folder = `${name}/${compactDay(plan.start)}-${compactDay(lastDay)}/${runId}`;
  const parquet = options.format === 'parquet';
  const parts = await writeParts(
    options,
    plan,
    execution,
    (part) => `${folder}/part_0_${String(part).padStart(4, '0')}.${parquet ? 'parquet' : 'csv.gz'}`,
    totals,
  );
  const manifest = `${folder}/manifest.json`;
  const submitted = deliveredAt(options, plan, execution).toISOString();
  writeJson(options.out, manifest, {
    manifestVersion: '2024-04-01',
    byteCount: parts.reduce((sum, part) => sum + part.bytes, 0),
    blobCount: parts.length,
    dataRowCount: parts.reduce((sum, part) => sum + part.rows, 0),
    exportConfig: {
      exportName: name,
      resourceId: AZURE_SCOPE,
      dataVersion: '1.0r2',
      apiVersion: '2023-07-01-preview',
      type: 'FocusCost',
      timeFrame: 'MonthToDate',
      granularity: 'Daily',
    },
    deliveryConfig: {
      partitionData: true,
      dataOverwriteBehavior: 'CreateNewReport',
      fileFormat: parquet ? 'Parquet' : 'Csv',
      compressionMode: parquet ? 'Snappy' : 'Gzip',
      containerUri: AZURE_STORAGE_ACCOUNT,
      rootFolderPath: options.prefix,
    },
    runInfo: {
      executionType: 'Scheduled',
      submittedTime: submitted,
      runId,
      startDate: `${plan.start.toISOString().slice(0, 10)}T00:00:00`,
      endDate: `${lastDay.toISOString().slice(0, 10)}T00:00:00`,
    },
    blobs: parts.map((part) => ({ blobName: inBucket(options.prefix, part.relative), byteCount: part.bytes, dataRowCount: part.rows })),
  });
  return { executionId: runId, deliveredAt: submitted, manifest, dataFiles: parts.map((part) => part.relative), ...totals.report() };
}

/**
 * Writes the tree under `options.out` (replacing `<out>/<export>`) and `<out>/expected.json`;
 * answers what expected.json holds.
 */
export async function writeExportLayout(input: ExportLayoutOptions): Promise<LayoutExpectation> {
  const options: ExportLayoutOptions = {
    ...input,
    periods: [...new Set(input.periods.map(billingPeriodOf))].sort(),
    prefix: input.prefix.replace(/^\/+|\/+$/g, ''),
  };
  if (!EXPORT_LAYOUTS.includes(options.layout)) throw new Error(`--layout takes ${EXPORT_LAYOUTS.join(' or ')}`);
  if (!['parquet', 'csv.gz'].includes(options.format)) throw new Error('a layout is written as parquet or csv.gz');
  for (const [label, value] of [
    ['--executions', options.executions],
    ['--parts', options.parts],
    ['--rows', options.rows],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${label} takes a positive whole number`);
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(options.exportName)) throw new Error('--export-name takes letters, digits, - and _');
  rmSync(path.join(options.out, options.exportName), { recursive: true, force: true });

  const expectation: LayoutExpectation = {
    layout: options.layout,
    exportName: options.exportName,
    bucket: options.bucket,
    prefix: options.prefix,
    format: options.format,
    seed: options.seed,
    billingPeriods: {},
  };
  const writeExecution = options.layout === 'aws-data-exports' ? writeAwsExecution : writeAzureExecution;
  for (const period of options.periods) {
    const plan = planPeriod(options, period);
    const all = new Totals();
    const executions: LayoutExecution[] = [];
    for (let execution = 1; execution <= options.executions; execution++) {
      const totals = new Totals();
      executions.push(await writeExecution(options, plan, execution, totals));
      all.plus(totals);
    }
    const latest = executions[executions.length - 1];
    expectation.billingPeriods[period] = {
      latest: { executionId: latest.executionId, rows: latest.rows, billedCost: latest.billedCost, effectiveCost: latest.effectiveCost },
      allExecutions: all.report(),
      executions,
    };
  }
  writeJson(options.out, 'expected.json', expectation);
  return expectation;
}
