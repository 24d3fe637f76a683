import type { CurrencyConversion } from '../../currency/currency-converter';
import type { CostLineItem } from '../../line-items/schemas/cost-line-item.schema';
import { splitTags } from '../../line-items/tags';
import type { ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';
import { Cell, CellError, CellRow, isNullCell, periodOf, readCurrency, readDate, readDecimal, readJsonObject, readText } from './cells';
import {
  FOCUS_COLUMNS,
  FocusColumn,
  focusColumnOf,
  FocusVersion,
  isCustomColumn,
  mandatoryColumnsOf,
  ROW_ID_COLUMN,
} from './focus-columns';
import { problem, RowProblem } from '../report/ingest-report';
import { setLocationFields } from './location-fields';

export const UNCATEGORIZED = 'Uncategorized';

export type CostDoc = Omit<CostLineItem, 'tenantId'>;

/** Rule codes of cost rows (the conformance report counts problems by these). */
export const RULES = {
  valueMissing: 'REQUIRED_VALUE_MISSING',
  mandatoryNull: 'MANDATORY_VALUE_NULL',
  date: 'DATE_INVALID',
  decimal: 'DECIMAL_INVALID',
  currency: 'CURRENCY_INVALID',
  json: 'JSON_INVALID',
  tags: 'TAGS_INVALID',
  notAllowed: 'VALUE_NOT_ALLOWED',
  periodOrder: 'CHARGE_PERIOD_END_BEFORE_START',
  noRate: 'NO_EXCHANGE_RATE',
  accountFolder: 'BILLING_ACCOUNT_FOLDER_MISMATCH',
  periodFolder: 'CHARGE_PERIOD_OUTSIDE_FOLDER',
  fieldCount: 'FIELD_COUNT_MISMATCH',
  mandatoryColumn: 'MANDATORY_COLUMN_MISSING',
  requiredColumn: 'REQUIRED_COLUMN_MISSING',
  unknownColumn: 'UNKNOWN_COLUMN',
} as const;

/** Where a GPD row must belong: its folder names the account and the period. */
export interface FolderConstraint {
  providerName: string;
  billingAccountId: string;
  period: string;
  assetAccountId?: string;
}

export interface CostRowContext {
  uploadRefId: string;
  conversion: CurrencyConversion;
  /** The provider's metadata snapshot, loaded by the caller before the row is read. */
  metadataOf(providerName: string): ProviderMetadataSnapshot;
  /** GPD: the folder of the file. FOCUS: absent (provider, account and period come from the row). */
  folder?: FolderConstraint;
  /** The provider of every row when the file has no provider column (an extension's rows). */
  providerName?: string;
  /** Columns whose null value rejects the row (beyond the ones every cost row needs). */
  required: readonly string[];
  focusVersion?: FocusVersion;
  /** FOCUS files: null mandatory values and values outside the allowed lists are counted as warnings. */
  conformance: boolean;
  sourceFile: string;
}

/** How one header maps: to a FOCUS column, a custom `x_` column, the row id, or nothing. */
export interface HeaderPlan {
  /** Every header of the file, in order: a row given as an array has its cells in this order. */
  headers: string[];
  /** `index`: the cell of the column in a row array (the last cell of that header, as in a row object keyed by the header). */
  columns: { header: string; column: FocusColumn; index: number }[];
  custom: string[];
  customIndexes: number[];
  idHeader?: string;
  idIndex?: number;
  sourceFileHeader?: string;
  sourceFileIndex?: number;
  sourceRowHeader?: string;
  sourceRowIndex?: number;
  providerHeader?: string;
  providerIndex?: number;
  serviceProviderHeader?: string;
  serviceProviderIndex?: number;
  unknown: string[];
  /** Mandatory columns of the version that the file lacks. */
  missingMandatory: string[];
}

/** Reads a header once per file: what every row of that file will go through. */
export function planHeader(headers: readonly string[], version: FocusVersion | undefined): HeaderPlan {
  const plan: HeaderPlan = { headers: [...headers], columns: [], custom: [], customIndexes: [], unknown: [], missingMandatory: [] };
  // a header given twice: a row object keyed by the header holds its last cell
  const indexOf = (header: string) => headers.lastIndexOf(header);
  const seen = new Set<string>();
  for (const header of headers) {
    if (header === ROW_ID_COLUMN) {
      plan.idHeader = header;
      plan.idIndex = indexOf(header);
      continue;
    }
    if (header === SOURCE_FILE_COLUMN) {
      plan.sourceFileHeader = header;
      plan.sourceFileIndex = indexOf(header);
      continue;
    }
    if (header === SOURCE_ROW_COLUMN) {
      plan.sourceRowHeader = header;
      plan.sourceRowIndex = indexOf(header);
      continue;
    }
    if (isCustomColumn(header)) {
      plan.custom.push(header);
      plan.customIndexes.push(indexOf(header));
      continue;
    }
    const column = focusColumnOf(header);
    if (!column) {
      plan.unknown.push(header);
      continue;
    }
    if (seen.has(column.name)) continue;
    seen.add(column.name);
    if (column.name === 'ProviderName') {
      plan.providerHeader = header;
      plan.providerIndex = indexOf(header);
    } else if (column.name === 'ServiceProviderName') {
      plan.serviceProviderHeader = header;
      plan.serviceProviderIndex = indexOf(header);
    }
    if (column.field) plan.columns.push({ header, column, index: indexOf(header) });
  }
  if (version)
    plan.missingMandatory = mandatoryColumnsOf(version)
      .map((column) => column.name)
      .filter((name) => !seen.has(name));
  return plan;
}

/** Header names of a plan that must be present for rows to be read at all. */
export function missingRequiredColumns(plan: HeaderPlan, required: readonly string[]): string[] {
  const present = new Set(plan.columns.map(({ column }) => column.name));
  if (plan.providerHeader) present.add('ProviderName');
  if (plan.serviceProviderHeader) present.add('ServiceProviderName');
  return required.filter((name) => {
    if (name === 'ProviderName') return !plan.providerHeader && !plan.serviceProviderHeader;
    return !present.has(name);
  });
}

/**
 * Columns the extension flow writes into the GPD files it generates: the raw file and line a row
 * came from, so that line items and rejections point at the raw data, not at the generated file.
 */
export const SOURCE_FILE_COLUMN = 'x_SourceFile';
export const SOURCE_ROW_COLUMN = 'x_SourceRow';

export interface RowSource {
  file: string;
  line: number;
}

export type CostRowResult = { doc?: CostDoc; problems: RowProblem[]; providerName?: string; id?: string; source: RowSource };

/** A row as the cells of its file's header, in order (`HeaderPlan.headers`). */
export type CellArray = ArrayLike<Cell>;

/** Where a row comes from: the file and line it sits at, or the raw file and line the flow wrote beside it. */
export function sourceOfRow(row: CellRow, plan: HeaderPlan, file: string, line: number): RowSource {
  return sourceOfCells(cellsOf(row, plan), plan, file, line);
}

export function sourceOfCells(cells: CellArray, plan: HeaderPlan, file: string, line: number): RowSource {
  const rawFile = plan.sourceFileIndex !== undefined ? readText(cells[plan.sourceFileIndex]) : undefined;
  const rawLine = plan.sourceRowIndex !== undefined ? Number(readText(cells[plan.sourceRowIndex])) : Number.NaN;
  return rawFile && Number.isInteger(rawLine) ? { file: rawFile, line: rawLine } : { file, line };
}

/** The provider a FOCUS row belongs to: ServiceProviderName (1.3), else ProviderName. */
export function providerOfRow(row: CellRow, plan: HeaderPlan): string | undefined {
  return (
    (plan.serviceProviderHeader && readText(row[plan.serviceProviderHeader])) ||
    (plan.providerHeader && readText(row[plan.providerHeader])) ||
    undefined
  );
}

/** `providerOfRow` of a row array. */
export function providerOfCells(cells: CellArray, plan: HeaderPlan): string | undefined {
  return (
    (plan.serviceProviderIndex !== undefined && readText(cells[plan.serviceProviderIndex])) ||
    (plan.providerIndex !== undefined && readText(cells[plan.providerIndex])) ||
    undefined
  );
}

/** A row object's cells in the order of the plan's headers. */
function cellsOf(row: CellRow, plan: HeaderPlan): Cell[] {
  const headers = plan.headers;
  const cells = new Array<Cell>(headers.length);
  for (let index = 0; index < headers.length; index++) cells[index] = row[headers[index]];
  return cells;
}

/**
 * One cost row → one line item, with every problem of the row (not only the first): values are
 * read with the shared cell rules, amounts are kept as given, `cost` is `BilledCost` times the
 * rate of `BillingCurrency` into the corporate currency, unrounded. A row object keyed by the
 * header; the import loops read row arrays with `costRowReader(plan)` (the same reader).
 */
export function readCostRow(row: CellRow, plan: HeaderPlan, line: number, ctx: CostRowContext): CostRowResult {
  return costRowReader(plan)(cellsOf(row, plan), line, ctx);
}

/** Reads one row array of a file (the cells in the order of `plan.headers`); not re-entrant per plan. */
export type CostRowReader = (cells: CellArray, line: number, ctx: CostRowContext) => CostRowResult;

const readers = new WeakMap<HeaderPlan, CostRowReader>();

/** The reader of a plan's rows, compiled once per plan. */
export function costRowReader(plan: HeaderPlan): CostRowReader {
  let reader = readers.get(plan);
  if (!reader) {
    reader = compileCostRowReader(plan);
    readers.set(plan, reader);
  }
  return reader;
}

/** A field name of OUR column table (focus-columns.ts) written into generated code: never a header or a value of a file. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The document of a row's values (`values[i]`: the plan's column i, `undefined` when absent), its
 * fields in the plan's column order, each assigned by name. A document built by keyed stores
 * (`doc[field] = value`) over ~54 fields becomes a dictionary-mode object in V8 (slow to read,
 * to serialize and to collect); named stores keep it a fast object. The code is generated from
 * the column table's field names only.
 */
function documentBuilder(fields: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  const key = fields.join(',');
  let builder = builders.get(key);
  if (!builder) {
    if (builders.size >= 100) builders.clear();
    builder = generateBuilder(fields);
    builders.set(key, builder);
  }
  return builder;
}

/** The builders generated so far, by their list of fields (a plan per file, few distinct lists). */
const builders = new Map<string, (values: readonly unknown[]) => Record<string, unknown>>();

function generateBuilder(fields: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  const lines = fields.map((field, index) => {
    if (!FIELD_NAME.test(field) || !FOCUS_FIELDS.has(field)) throw new Error(`not a line-item field: ${field}`);
    return `if (v[${index}] !== undefined) d.${field} = v[${index}];`;
  });
  return new Function('v', `'use strict';\nconst d = {};\n${lines.join('\n')}\nreturn d;`) as (
    values: readonly unknown[],
  ) => Record<string, unknown>;
}

const FOCUS_FIELDS: ReadonlySet<string> = new Set(FOCUS_COLUMNS.flatMap((column) => (column.field ? [column.field] : [])));

function compileCostRowReader(plan: HeaderPlan): CostRowReader {
  const columns = plan.columns.map(({ column }) => column);
  const indexes = plan.columns.map(({ index }) => index);
  const count = columns.length;
  const build = documentBuilder(columns.map((column) => column.field as string));
  const position = new Map(columns.map((column, at) => [column.field as string, at]));
  const at = (field: string) => position.get(field) ?? -1;
  const startAt = at('chargePeriodStart');
  const endAt = at('chargePeriodEnd');
  const currencyAt = at('billingCurrency');
  const accountAt = at('billingAccountId');
  const assetTypeAt = at('assetType');
  const serviceNameAt = at('serviceName');
  const serviceCategoryAt = at('serviceCategory');
  const regionAt = at('region');
  const billingPeriodStartAt = at('billingPeriodStart');
  const billedCostAt = at('billedCost');
  /** Per `ctx.required` list: the position of each required column's field (-1: not a column of the file). */
  const requiredAt = new WeakMap<readonly string[], number[]>();
  const requiredPositions = (required: readonly string[]) => {
    let found = requiredAt.get(required);
    if (!found) {
      found = required.map((name) => (name === 'ProviderName' ? -1 : at(requiredField(name))));
      requiredAt.set(required, found);
    }
    return found;
  };
  // the values of the row being read (the reader is synchronous: one array serves every row)
  const values: unknown[] = new Array(count).fill(undefined);
  const valueAt = (index: number) => (index < 0 ? undefined : values[index]);

  return (cells, line, ctx) => {
    const source = sourceOfCells(cells, plan, ctx.sourceFile, line);
    const problems: RowProblem[] = [];
    let unreadable: Set<string> | undefined;
    for (let index = 0; index < count; index++) {
      const column = columns[index];
      const cell = cells[indexes[index]];
      let value: unknown;
      try {
        value = readColumn(column, cell);
      } catch (error) {
        if (!(error instanceof CellError)) throw error;
        problems.push(problem(ruleOfKind(column.kind), error.message, column.kind === 'json' ? 'warning' : 'error'));
        if (column.kind === 'json') values[index] = readText(cell);
        else {
          values[index] = undefined;
          (unreadable ??= new Set()).add(column.name);
        }
        continue;
      }
      values[index] = value;
      if (value === undefined) {
        if (column.notNull && ctx.conformance) problems.push(problem(RULES.mandatoryNull, `${column.name} is null`, 'warning'));
        continue;
      }
      if (ctx.conformance && column.allowed && typeof value === 'string' && !column.allowed.includes(value)) {
        problems.push(problem(RULES.notAllowed, `${column.name} "${value}" is not one of ${column.allowed.join(', ')}`, 'warning'));
      }
    }
    const providerName = ctx.folder?.providerName ?? ctx.providerName ?? providerOfCells(cells, plan);
    const id = plan.idIndex !== undefined ? readText(cells[plan.idIndex]) : undefined;
    const required = ctx.required;
    const positions = requiredPositions(required);
    for (let index = 0; index < required.length; index++) {
      const name = required[index];
      const missing = name === 'ProviderName' ? !providerName : valueAt(positions[index]) === undefined;
      if (missing && !unreadable?.has(name)) problems.push(problem(RULES.valueMissing, `${name} is empty`));
    }
    const start = valueAt(startAt) as Date | undefined;
    const end = valueAt(endAt) as Date | undefined;
    if (start && end && end < start) problems.push(problem(RULES.periodOrder, 'ChargePeriodEnd is before ChargePeriodStart'));
    if (ctx.folder) checkFolder(valueAt(accountAt) as string | undefined, start, ctx.folder, problems);

    const billingCurrency = valueAt(currencyAt) as string | undefined;
    const rate = billingCurrency ? ctx.conversion.rateOf(billingCurrency) : undefined;
    if (billingCurrency && rate === undefined) {
      problems.push(problem(RULES.noRate, `no exchange rate from ${billingCurrency} to ${ctx.conversion.corporateCurrency}`));
    }
    if (!providerName || !start || problems.some((found) => found.severity === 'error')) return { problems, providerName, id, source };

    // the columns' defined values, in the plan's order; the fields below are set only when defined (no undefined stored)
    const doc = build(values);
    const metadata = ctx.metadataOf(providerName);
    const assetType = valueAt(assetTypeAt) as string | undefined;
    const serviceName = valueAt(serviceNameAt) as string | undefined;
    const mapped =
      (assetType && metadata.categoriesByAssetType.get(assetType)) ||
      (serviceName && metadata.categoriesByAssetType.get(serviceName)) ||
      undefined;
    const period = ctx.folder?.period ?? periodOf(start);
    const billingPeriodStart = valueAt(billingPeriodStartAt) as Date | undefined;
    doc.uploadRefId = ctx.uploadRefId;
    doc.providerName = providerName;
    if (doc.billingAccountId === undefined && ctx.folder) doc.billingAccountId = ctx.folder.billingAccountId;
    doc.billingAccountName ??= '';
    if (doc.assetAccountId === undefined && ctx.folder?.assetAccountId !== undefined) doc.assetAccountId = ctx.folder.assetAccountId;
    doc.category = mapped || (valueAt(serviceCategoryAt) as string | undefined) || UNCATEGORIZED;
    if (metadata.locationsByRegion.size > 0) setLocationFields(doc, metadata, valueAt(regionAt) as string | undefined);
    doc.period = period;
    doc.billingPeriod = billingPeriodStart ? periodOf(billingPeriodStart) : period;
    doc.cost = (valueAt(billedCostAt) as number) * (rate as number);
    doc.currency = ctx.conversion.corporateCurrency;
    doc.tags ??= [];
    if (plan.custom.length > 0) {
      const custom: { name: string; value: string }[] = [];
      for (let index = 0; index < plan.custom.length; index++) {
        const value = readText(cells[plan.customIndexes[index]]);
        if (value !== undefined) custom.push({ name: plan.custom[index].trim(), value });
      }
      if (custom.length > 0) doc.customColumns = custom;
    }
    doc.sourceFile = source.file;
    doc.sourceRow = source.line;
    if (id) doc.sourceId = id;
    if (ctx.focusVersion) doc.focusVersion = ctx.focusVersion;
    return { doc: doc as CostDoc, problems, providerName, id, source };
  };
}

const requiredFields = new Map<string, string>();
/** The field a required column is read into (memoized: it is asked for every row). */
function requiredField(name: string): string {
  let field = requiredFields.get(name);
  if (field === undefined) {
    field = focusColumnOf(name)?.field ?? name;
    requiredFields.set(name, field);
  }
  return field;
}

function checkFolder(account: string | undefined, start: Date | undefined, folder: FolderConstraint, problems: RowProblem[]): void {
  if (account !== undefined && account !== folder.billingAccountId) {
    problems.push(problem(RULES.accountFolder, `BillingAccountId "${account}" differs from its folder "${folder.billingAccountId}"`));
  }
  if (start && periodOf(start) !== folder.period) {
    problems.push(
      problem(RULES.periodFolder, `ChargePeriodStart ${start.toISOString()} is outside the period ${folder.period} of its folder`),
    );
  }
}

function readColumn(column: FocusColumn, cell: Cell): unknown {
  switch (column.kind) {
    case 'decimal':
      return readDecimal(cell, column.name);
    case 'date':
      return readDate(cell, column.name);
    case 'currency':
      return readCurrency(cell, column.name);
    case 'json':
      return readJsonObject(cell, column.name);
    case 'tags':
      if (isNullCell(cell)) return undefined;
      try {
        return splitTags(typeof cell === 'string' ? cell : (cell as object));
      } catch (error) {
        throw new CellError(`Tags: ${(error as Error).message}`);
      }
    default:
      return readText(cell);
  }
}

function ruleOfKind(kind: FocusColumn['kind']): string {
  return {
    decimal: RULES.decimal,
    date: RULES.date,
    currency: RULES.currency,
    json: RULES.json,
    tags: RULES.tags,
    text: RULES.valueMissing,
  }[kind];
}

/** The driver would store `undefined` as null; absent fields stay absent. */
export function withoutUndefined<T extends object>(doc: T): T {
  for (const key of Object.keys(doc) as (keyof T)[]) if (doc[key] === undefined) delete doc[key];
  return doc;
}
