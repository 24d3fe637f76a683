import type { CurrencyConversion } from '../../currency/currency-converter';
import { CellError, CellRow, readDate, readDecimal, readText } from '../map/cells';
import { CostDoc, planHeader, readCostRow, RowSource, RULES, UNCATEGORIZED, withoutUndefined } from '../map/cost-row';
import { problem, RowProblem } from '../report/ingest-report';
import { locationFields } from '../map/location-fields';
import type { Asset } from '../../line-items/schemas/asset.schema';
import type { Utilization } from '../../line-items/schemas/utilization.schema';
import { splitTags, Tag } from '../../line-items/tags';
import type { ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';

export type Row = CellRow;
export type Checked<T> =
  | { ok: true; doc: Omit<T, 'tenantId'>; problems: RowProblem[]; source?: RowSource }
  | { ok: false; reason: string; problems: RowProblem[]; source?: RowSource };

/** What every row of one GPD file shares: where it came from and how it is enriched. */
export interface FileContext {
  uploadRefId: string;
  providerName: string;
  period: string;
  billingAccountId: string;
  assetAccountId?: string;
  conversion: CurrencyConversion;
  metadata: ProviderMetadataSnapshot;
  /** Path of the file in the zip (kept on each line item with its line). */
  sourceFile?: string;
}

/** The cost-file columns whose null value rejects a GPD row (docs/gpd-format.md#cost-file-c_account_timestampcsv). */
export const GPD_REQUIRED_VALUES = [
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'BillingAccountId',
  'BilledCost',
  'BillingCurrency',
  'ServiceName',
];

function outcome<T>(doc: Omit<T, 'tenantId'> | undefined, problems: RowProblem[]): Checked<T> {
  const errors = problems.filter((found) => found.severity === 'error');
  if (errors.length > 0 || !doc) return { ok: false, reason: errors.map((found) => found.message).join('; '), problems };
  return { ok: true, doc, problems };
}

/**
 * One GPD cost row → one line item, with the rules every cost row goes through (imports/map/cost-row.ts):
 * GPD cost CSVs are FOCUS columns, checked against the folder they sit in.
 */
export function checkCostRow(row: Row, ctx: FileContext, line = 0, plan = planHeader(Object.keys(row), undefined)): Checked<CostDoc> {
  const result = readCostRow(row, plan, line, {
    uploadRefId: ctx.uploadRefId,
    conversion: ctx.conversion,
    metadataOf: () => ctx.metadata,
    folder: {
      providerName: ctx.providerName,
      billingAccountId: ctx.billingAccountId,
      period: ctx.period,
      assetAccountId: ctx.assetAccountId,
    },
    required: GPD_REQUIRED_VALUES,
    conformance: false,
    sourceFile: ctx.sourceFile ?? '',
  });
  return { ...outcome<CostDoc>(result.doc, result.problems), source: result.source };
}

/** Reads the cells of a non-cost row, collecting every problem instead of stopping at the first. */
class CellReader {
  readonly problems: RowProblem[] = [];

  constructor(private readonly row: Row) {}

  required(column: string): string {
    const value = readText(this.row[column]);
    if (value === undefined) this.problems.push(problem(RULES.valueMissing, `${column} is empty`));
    return value ?? '';
  }

  text(column: string): string | undefined {
    return readText(this.row[column]);
  }

  date(column: string): Date | undefined {
    return this.guard(RULES.date, () => readDate(this.row[column], column), column);
  }

  decimal(column: string): number | undefined {
    return this.guard(RULES.decimal, () => readDecimal(this.row[column], column), column);
  }

  tags(): Tag[] {
    try {
      return splitTags(this.text('Tags') === undefined ? undefined : (this.row.Tags as string | object));
    } catch (error) {
      this.problems.push(problem(RULES.tags, `Tags: ${(error as Error).message}`));
      return [];
    }
  }

  private guard<T>(rule: string, read: () => T | undefined, column: string): T | undefined {
    try {
      const value = read();
      if (value === undefined) this.problems.push(problem(RULES.valueMissing, `${column} is empty`));
      return value;
    } catch (error) {
      if (!(error instanceof CellError)) throw error;
      this.problems.push(problem(rule, error.message));
      return undefined;
    }
  }
}

export function checkAssetRow(row: Row, ctx: FileContext): Checked<Asset> {
  const cells = new CellReader(row);
  const assetType = cells.text('ResourceType');
  const region = cells.text('RegionId');
  const doc = withoutUndefined({
    uploadRefId: ctx.uploadRefId,
    providerName: ctx.providerName,
    billingAccountId: ctx.billingAccountId,
    assetAccountId: ctx.assetAccountId ?? '',
    period: ctx.period,
    resourceId: cells.required('ResourceId'),
    resourceName: cells.text('ResourceName'),
    assetType,
    category: (assetType && ctx.metadata.categoriesByAssetType.get(assetType)) || UNCATEGORIZED,
    region,
    ...locationFields(ctx.metadata, region),
    tags: cells.tags(),
  });
  return outcome<Asset>(doc, cells.problems);
}

export function checkUtilizationRow(row: Row, ctx: FileContext): Checked<Utilization> {
  const cells = new CellReader(row);
  const doc = {
    uploadRefId: ctx.uploadRefId,
    providerName: ctx.providerName,
    billingAccountId: ctx.billingAccountId,
    assetAccountId: ctx.assetAccountId ?? '',
    period: ctx.period,
    resourceId: cells.required('ResourceId'),
    timestamp: cells.date('Timestamp') as Date,
    metric: cells.required('Metric'),
    value: cells.decimal('Value') as number,
    unit: cells.text('Unit') ?? '',
  };
  return outcome<Utilization>(doc, cells.problems);
}
