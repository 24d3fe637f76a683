import { CellError, isNullCell, periodOf, readCurrency, readJsonObject, readText } from './cells';
import type { Cell, CellRow } from './cells';
import {
  costRowReader,
  CostDoc,
  CostRowContext,
  CostRowResult,
  FolderConstraint,
  HeaderPlan,
  planHeader,
  providerOfCells,
  readCostRow,
  RowSource,
  RULES,
  UNCATEGORIZED,
} from './cost-row';
import { FocusColumn, focusColumnOf, FocusVersion } from './focus-columns';
import { locationFields, setLocationFields } from './location-fields';
import { problem, RowProblem } from '../report/ingest-report';
import { DEFAULT_TAG_GROUP, Tag } from '../../line-items/tags';
import type { ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';
import { focusRow, headerOf } from '../../../../../tools/focus/focus-rows';

const METADATA: ProviderMetadataSnapshot = {
  categoriesByAssetType: new Map([
    ['AmazonEC2', 'Compute (mapped)'],
    ['Virtual Machines', 'VMs'],
  ]),
  locationsByRegion: new Map([
    [
      'eu-west-1',
      { providerName: 'aws', providerRegionCode: 'eu-west-1', location: 'Dublin', country: 'IE', region: 'Europe', dataCenter: '' },
    ],
    ['westeurope', { providerName: 'azure', providerRegionCode: 'westeurope', country: 'NL', subregion: 'Western Europe', state: 'NH' }],
  ]),
} as never;
const EMPTY: ProviderMetadataSnapshot = { categoriesByAssetType: new Map(), locationsByRegion: new Map() };
const RATES: Record<string, number> = { USD: 1, EUR: 1.0823 };

const contexts = (version: FocusVersion): [string, CostRowContext][] => {
  const base = {
    uploadRefId: 'u1',
    conversion: { corporateCurrency: 'USD', rateOf: (currency: string) => RATES[currency] },
    sourceFile: 'focus.csv',
  } as const;
  const folder: FolderConstraint = { providerName: 'aws', billingAccountId: '123456789012', period: '202409', assetAccountId: 'sub-1' };
  return [
    [
      'FOCUS import',
      {
        ...base,
        metadataOf: () => METADATA,
        required: ['ChargePeriodStart', 'BilledCost', 'BillingCurrency', 'BillingAccountId', 'ProviderName'],
        conformance: true,
        focusVersion: version,
      },
    ],
    [
      'GPD enrichment',
      {
        ...base,
        metadataOf: () => EMPTY,
        folder,
        required: ['ChargePeriodStart', 'ChargePeriodEnd', 'BillingAccountId', 'BilledCost', 'BillingCurrency', 'ServiceName'],
        conformance: false,
      },
    ],
    [
      'extension flow',
      { ...base, metadataOf: () => EMPTY, providerName: 'acme', required: ['ChargePeriodStart', 'ServiceName'], conformance: false },
    ],
  ];
};

/** A generated row's cells as a Parquet reader gives them: numbers, Dates, a Tags object. */
function typed(row: CellRow): CellRow {
  const cells: CellRow = {};
  for (const [header, cell] of Object.entries(row)) {
    const kind = focusColumnOf(header)?.kind;
    if (cell === null || cell === undefined) cells[header] = cell;
    else if (kind === 'decimal') cells[header] = Number(cell);
    else if (kind === 'date') cells[header] = new Date(/[zZ]$/.test(String(cell)) ? String(cell) : `${String(cell).replace(' ', 'T')}Z`);
    else if (kind === 'tags') cells[header] = JSON.parse(String(cell)) as object;
    else cells[header] = cell;
  }
  return cells;
}

/** Cells the rules refuse or warn about, so that the error paths are compared too. */
const BROKEN: Record<string, string>[] = [
  { BilledCost: 'ten' },
  { BilledCost: '0x10' },
  { BilledCost: '1e0001' },
  { EffectiveCost: '8e-7' },
  { ChargePeriodStart: '2024-02-30T00:00:00Z' },
  { ChargePeriodStart: '2024-09-18t22:00:00z' },
  { ChargePeriodStart: '0050-01-01' },
  { ChargePeriodStart: '2024-09-18T22:00:00+02:00' },
  { ChargePeriodEnd: '2020-01-01' },
  { BillingCurrency: 'usd' },
  { BillingCurrency: 'JPY' },
  { SkuPriceDetails: '{nope' },
  { Tags: '[1,2]' },
  { Tags: '{"a/b:c":"x","k":null,"n":1.5,"t":true}' },
  { ServiceCategory: 'Not a category' },
  { BillingAccountId: '' },
  { BillingAccountName: 'NULL' },
  { ProviderName: '' },
  { RegionId: 'westeurope' },
  { RegionId: 'eu-west-1', ResourceType: 'AmazonEC2' },
];

/** Renames the generated row's headers to the file's (aliases, other case). */
const renamed = (row: CellRow, headers: readonly string[], names: readonly string[]): CellRow =>
  Object.fromEntries(names.map((header, index) => [headers[index], row[header] ?? null]));

function compare(plan: HeaderPlan, row: CellRow, line: number, ctx: CostRowContext): boolean {
  const expected = legacyReadCostRow(row, plan, line, ctx);
  const actual = readCostRow(row, plan, line, ctx);
  expect(actual).toEqual(expected);
  const cells = plan.headers.map((header) => row[header]);
  const fromArray = costRowReader(plan)(cells, line, ctx);
  expect(fromArray).toEqual(expected);
  // same fields, in the same order, and no field held as undefined
  if (expected.doc) {
    expect(Object.keys(fromArray.doc as object)).toEqual(Object.keys(expected.doc));
    expect(Object.values(fromArray.doc as object)).not.toContain(undefined);
  }
  expect(Object.keys(fromArray).sort()).toEqual(Object.keys(expected).sort());
  expect(providerOfCells(cells, plan)).toEqual(legacyProviderOfRow(row, plan));
  return expected.doc !== undefined;
}

describe('the compiled cost-row reader', () => {
  for (const version of ['1.0', '1.1', '1.2', '1.3'] as const) {
    it(`gives the documents and problems of the row-object reader on generated FOCUS ${version} rows and their edges`, () => {
      const names = headerOf(version);
      const options = { version, providers: ['aws', 'azure', 'oci', 'gcp'], periods: ['202409', '202410'], rows: 400 };
      const outcomes = { stored: 0, rejected: 0 };
      for (const [_name, ctx] of contexts(version)) {
        const plan = planHeader(names, version);
        for (let index = 0; index < 400; index++) {
          const row = focusRow(index, options) as CellRow;
          const cells: CellRow = index % 3 === 0 ? typed(row) : row;
          if (index % 2 === 1)
            for (const [header, cell] of Object.entries(cells)) if (cell === null) cells[header] = index % 4 === 1 ? '' : 'NULL';
          if (index % 5 === 0) Object.assign(cells, BROKEN[(index / 5) % BROKEN.length]);
          if (compare(plan, cells, index + 2, ctx)) outcomes.stored++;
          else outcomes.rejected++;
        }
      }
      // both paths are compared: rows stored and rows rejected
      expect(outcomes.stored).toBeGreaterThan(600);
      expect(outcomes.rejected).toBeGreaterThan(30);
    });
  }

  it('reads headers in any order, by alias or case, given twice, with custom columns, Id and the raw source columns', () => {
    const version: FocusVersion = '1.2';
    const names = headerOf(version);
    const options = { version, providers: ['aws', 'azure'], periods: ['202409'], rows: 50 };
    const shuffled = [...names].reverse();
    const headers = shuffled.map((header) =>
      header === 'ConsumedQuantity' ? 'UsageQuantity' : header === 'RegionId' ? 'region' : header === 'BilledCost' ? 'billedcost' : header,
    );
    const withExtras = [...headers, 'Id', 'x_SourceFile', 'x_SourceRow', 'x_CostCenter', 'BilledCost', 'Unknown', '__proto__'];
    for (const [_name, ctx] of contexts(version)) {
      const plan = planHeader(withExtras, version);
      for (let index = 0; index < 50; index++) {
        const base = renamed(focusRow(index, options) as CellRow, headers, shuffled);
        const row: CellRow = {
          ...base,
          Id: `r${index}`,
          x_SourceFile: index % 2 ? 'raw.csv' : '',
          x_SourceRow: String(index + 10),
          x_CostCenter: index % 3 ? `cc-${index}` : 'NULL',
          BilledCost: String(index / 7),
          Unknown: 'u',
        };
        Object.defineProperty(row, '__proto__', { value: 'proto', enumerable: true, configurable: true, writable: true });
        compare(plan, row, index + 2, ctx);
      }
    }
  });

  it('sets the location fields as Object.assign of locationFields did, in the same order', () => {
    for (const region of ['eu-west-1', 'westeurope', 'nowhere', undefined]) {
      const assigned: Record<string, unknown> = { a: 1 };
      const set: Record<string, unknown> = { a: 1 };
      Object.assign(assigned, locationFields(METADATA, region));
      setLocationFields(set, METADATA, region);
      expect(Object.entries(set)).toEqual(Object.entries(assigned));
    }
  });
});

function legacyProviderOfRow(row: CellRow, plan: HeaderPlan): string | undefined {
  return (
    (plan.serviceProviderHeader && readText(row[plan.serviceProviderHeader])) ||
    (plan.providerHeader && readText(row[plan.providerHeader])) ||
    undefined
  );
}

// ---- the reader as it was before issue 22 (git HEAD), kept here as the reference the compiled reader must equal ----
const DATE_TIME = new RegExp(
  // date, optional time (`T` or a space, then hours, minutes, seconds and fraction), optional zone
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])/.source +
    /(?:[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,9}))?)?)?/.source +
    /\s*(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/.source,
  'i',
);

function legacyReadDate(cell: Cell, column: string): Date | undefined {
  if (isNullCell(cell)) return undefined;
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) throw new CellError(`${column} is not a valid date`);
    return cell;
  }
  const text = String(cell).trim();
  const match = DATE_TIME.exec(text);
  if (!match) throw new CellError(`${column} "${text}" is not an ISO 8601 date`);
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone] = match;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  let time = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), millis);
  const utc = new Date(time);
  if (utc.getUTCDate() !== Number(day)) throw new CellError(`${column} "${text}" is not a calendar date`);
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return new Date(time);
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/;

/**
 * A decimal as the nearest binary double: no rounding to a number of places (10 and more
 * decimals, exponents such as `8e-7`, negatives are kept as given). See the README's money
 * decision for why doubles.
 */
function legacyReadDecimal(cell: Cell, column: string): number | undefined {
  if (isNullCell(cell)) return undefined;
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) throw new CellError(`${column} ${cell} is not a finite number`);
    return cell;
  }
  if (typeof cell === 'bigint') return Number(cell);
  const text = String(cell).trim();
  const parsed = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(parsed)) throw new CellError(`${column} "${text}" is not a decimal number`);
  return parsed;
}

function legacySplitTags(raw: string | object | undefined | null): Tag[] {
  if (raw === undefined || raw === null) return [];
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return [];
    parsed = JSON.parse(raw);
  } else if (raw instanceof Map) {
    parsed = Object.fromEntries(raw);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('Tags must be a JSON object');
  const tags: Tag[] = [];
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (value !== null && typeof value === 'object') throw new Error(`tag ${name} must have a scalar value`);
    const at = name.search(/[:/]/);
    const group = at > 0 ? name.slice(0, at) : DEFAULT_TAG_GROUP;
    const key = at > 0 ? name.slice(at + 1) : name;
    const tag: Tag = { group, key, value: value === null ? '' : String(value) };
    if (at > 0) tag.name = name;
    if (value === null) tag.type = 'null';
    else if (typeof value === 'boolean') tag.type = 'boolean';
    else if (typeof value === 'number' || typeof value === 'bigint') tag.type = 'number';
    tags.push(tag);
  }
  return tags;
}

function sourceOfRow(row: CellRow, plan: HeaderPlan, file: string, line: number): RowSource {
  const rawFile = plan.sourceFileHeader ? readText(row[plan.sourceFileHeader]) : undefined;
  const rawLine = plan.sourceRowHeader ? Number(readText(row[plan.sourceRowHeader])) : Number.NaN;
  return rawFile && Number.isInteger(rawLine) ? { file: rawFile, line: rawLine } : { file, line };
}

/** The provider a FOCUS row belongs to: ServiceProviderName (1.3), else ProviderName. */
function providerOfRow(row: CellRow, plan: HeaderPlan): string | undefined {
  return (
    (plan.serviceProviderHeader && readText(row[plan.serviceProviderHeader])) ||
    (plan.providerHeader && readText(row[plan.providerHeader])) ||
    undefined
  );
}

function legacyReadCostRow(row: CellRow, plan: HeaderPlan, line: number, ctx: CostRowContext): CostRowResult {
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
      return legacyReadDecimal(cell, column.name);
    case 'date':
      return legacyReadDate(cell, column.name);
    case 'currency':
      return readCurrency(cell, column.name);
    case 'json':
      return readJsonObject(cell, column.name);
    case 'tags':
      if (isNullCell(cell)) return undefined;
      try {
        return legacySplitTags(typeof cell === 'string' ? cell : (cell as object));
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
