import type { CurrencyConversion } from '../../currency/currency-converter';
import type { CostLineItem } from '../../line-items/schemas/cost-line-item.schema';
import { splitTags } from '../../line-items/tags';
import type { ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';
import { Cell, CellError, CellRow, isNullCell, periodOf, readCurrency, readDate, readDecimal, readJsonObject, readText } from './cells';
import { FocusColumn, focusColumnOf, FocusVersion, isCustomColumn, mandatoryColumnsOf, ROW_ID_COLUMN } from './focus-columns';
import { problem, RowProblem } from '../report/ingest-report';
import { locationFields } from './location-fields';

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
  columns: { header: string; column: FocusColumn }[];
  custom: string[];
  idHeader?: string;
  sourceFileHeader?: string;
  sourceRowHeader?: string;
  providerHeader?: string;
  serviceProviderHeader?: string;
  unknown: string[];
  /** Mandatory columns of the version that the file lacks. */
  missingMandatory: string[];
}

/** Reads a header once per file: what every row of that file will go through. */
export function planHeader(headers: readonly string[], version: FocusVersion | undefined): HeaderPlan {
  const plan: HeaderPlan = { columns: [], custom: [], unknown: [], missingMandatory: [] };
  const seen = new Set<string>();
  for (const header of headers) {
    if (header === ROW_ID_COLUMN) {
      plan.idHeader = header;
      continue;
    }
    if (header === SOURCE_FILE_COLUMN || header === SOURCE_ROW_COLUMN) {
      plan[header === SOURCE_FILE_COLUMN ? 'sourceFileHeader' : 'sourceRowHeader'] = header;
      continue;
    }
    if (isCustomColumn(header)) {
      plan.custom.push(header);
      continue;
    }
    const column = focusColumnOf(header);
    if (!column) {
      plan.unknown.push(header);
      continue;
    }
    if (seen.has(column.name)) continue;
    seen.add(column.name);
    if (column.name === 'ProviderName') plan.providerHeader = header;
    else if (column.name === 'ServiceProviderName') plan.serviceProviderHeader = header;
    if (column.field) plan.columns.push({ header, column });
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

/** Where a row comes from: the file and line it sits at, or the raw file and line the flow wrote beside it. */
export function sourceOfRow(row: CellRow, plan: HeaderPlan, file: string, line: number): RowSource {
  const rawFile = plan.sourceFileHeader ? readText(row[plan.sourceFileHeader]) : undefined;
  const rawLine = plan.sourceRowHeader ? Number(readText(row[plan.sourceRowHeader])) : Number.NaN;
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

/**
 * One cost row → one line item, with every problem of the row (not only the first): values are
 * read with the shared cell rules, amounts are kept as given, `cost` is `BilledCost` times the
 * rate of `BillingCurrency` into the corporate currency, unrounded.
 */
export function readCostRow(row: CellRow, plan: HeaderPlan, line: number, ctx: CostRowContext): CostRowResult {
  const source = sourceOfRow(row, plan, ctx.sourceFile, line);
  const problems: RowProblem[] = [];
  const values: Record<string, unknown> = {};
  let unreadable: Set<string> | undefined;
  for (const { header, column } of plan.columns) {
    const cell = row[header];
    try {
      const value = readColumn(column, cell);
      if (value === undefined) {
        if (column.notNull && ctx.conformance) problems.push(problem(RULES.mandatoryNull, `${column.name} is null`, 'warning'));
        continue;
      }
      if (ctx.conformance && column.allowed && typeof value === 'string' && !column.allowed.includes(value)) {
        problems.push(problem(RULES.notAllowed, `${column.name} "${value}" is not one of ${column.allowed.join(', ')}`, 'warning'));
      }
      values[column.field as string] = value;
    } catch (error) {
      if (!(error instanceof CellError)) throw error;
      problems.push(problem(ruleOfKind(column.kind), error.message, column.kind === 'json' ? 'warning' : 'error'));
      if (column.kind === 'json') values[column.field as string] = readText(cell);
      else (unreadable ??= new Set()).add(column.name);
    }
  }
  const providerName = ctx.folder?.providerName ?? ctx.providerName ?? providerOfRow(row, plan);
  const id = plan.idHeader ? readText(row[plan.idHeader]) : undefined;
  for (const name of ctx.required) {
    const missing = name === 'ProviderName' ? !providerName : values[requiredField(name)] === undefined;
    if (missing && !unreadable?.has(name)) problems.push(problem(RULES.valueMissing, `${name} is empty`));
  }
  const start = values.chargePeriodStart as Date | undefined;
  const end = values.chargePeriodEnd as Date | undefined;
  if (start && end && end < start) problems.push(problem(RULES.periodOrder, 'ChargePeriodEnd is before ChargePeriodStart'));
  if (ctx.folder) checkFolder(values, start, ctx.folder, problems);

  const billingCurrency = values.billingCurrency as string | undefined;
  const rate = billingCurrency ? ctx.conversion.rateOf(billingCurrency) : undefined;
  if (billingCurrency && rate === undefined) {
    problems.push(problem(RULES.noRate, `no exchange rate from ${billingCurrency} to ${ctx.conversion.corporateCurrency}`));
  }
  if (!providerName || !start || problems.some((found) => found.severity === 'error')) return { problems, providerName, id, source };

  // `values` only holds defined values; the fields below are set only when defined (no undefined stored)
  const doc = values as Record<string, unknown>;
  const metadata = ctx.metadataOf(providerName);
  const assetType = values.assetType as string | undefined;
  const serviceName = values.serviceName as string | undefined;
  const mapped =
    (assetType && metadata.categoriesByAssetType.get(assetType)) ||
    (serviceName && metadata.categoriesByAssetType.get(serviceName)) ||
    undefined;
  const period = ctx.folder?.period ?? periodOf(start);
  const billingPeriodStart = values.billingPeriodStart as Date | undefined;
  doc.uploadRefId = ctx.uploadRefId;
  doc.providerName = providerName;
  if (doc.billingAccountId === undefined && ctx.folder) doc.billingAccountId = ctx.folder.billingAccountId;
  doc.billingAccountName ??= '';
  if (doc.assetAccountId === undefined && ctx.folder?.assetAccountId !== undefined) doc.assetAccountId = ctx.folder.assetAccountId;
  doc.category = mapped || (values.serviceCategory as string | undefined) || UNCATEGORIZED;
  if (metadata.locationsByRegion.size > 0) Object.assign(doc, locationFields(metadata, values.region as string | undefined));
  doc.period = period;
  doc.billingPeriod = billingPeriodStart ? periodOf(billingPeriodStart) : period;
  doc.cost = (values.billedCost as number) * (rate as number);
  doc.currency = ctx.conversion.corporateCurrency;
  doc.tags ??= [];
  if (plan.custom.length > 0) {
    const custom: { name: string; value: string }[] = [];
    for (const header of plan.custom) {
      const value = readText(row[header]);
      if (value !== undefined) custom.push({ name: header.trim(), value });
    }
    if (custom.length > 0) doc.customColumns = custom;
  }
  doc.sourceFile = source.file;
  doc.sourceRow = source.line;
  if (id) doc.sourceId = id;
  if (ctx.focusVersion) doc.focusVersion = ctx.focusVersion;
  return { doc: doc as CostDoc, problems, providerName, id, source };
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

function checkFolder(values: Record<string, unknown>, start: Date | undefined, folder: FolderConstraint, problems: RowProblem[]): void {
  const account = values.billingAccountId as string | undefined;
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
