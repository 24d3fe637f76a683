import type { CurrencyConversion } from '../currency/currency-converter';
import type { Asset } from '../line-items/schemas/asset.schema';
import type { CostLineItem } from '../line-items/schemas/cost-line-item.schema';
import type { Utilization } from '../line-items/schemas/utilization.schema';
import { splitTags, Tag } from '../line-items/tags';
import type { ProviderMetadataSnapshot } from '../provider-metadata/provider-metadata.lookup';

export const UNCATEGORIZED = 'Uncategorized';

export type Row = Record<string, string | undefined>;
export type Checked<T> = { ok: true; doc: Omit<T, 'tenantId'> } | { ok: false; reason: string };

/** What every row of one file shares: where it came from and how it is enriched. */
export interface FileContext {
  uploadRefId: string;
  providerName: string;
  period: string;
  billingAccountId: string;
  assetAccountId?: string;
  conversion: CurrencyConversion;
  metadata: ProviderMetadataSnapshot;
}

const ISO_DATE =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/;
const CURRENCY = /^[A-Z]{3}$/;

class RowError extends Error {}

const text = (row: Row, column: string): string | undefined => {
  const value = row[column]?.trim();
  return value === '' ? undefined : value;
};

function required(row: Row, column: string): string {
  const value = text(row, column);
  if (value === undefined) throw new RowError(`${column} is empty`);
  return value;
}

function date(row: Row, column: string, optional = false): Date | undefined {
  const value = optional ? text(row, column) : required(row, column);
  if (value === undefined) return undefined;
  const parsed = ISO_DATE.test(value) ? new Date(value) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime())) throw new RowError(`${column} "${value}" is not an ISO 8601 date`);
  return parsed;
}

function decimal(row: Row, column: string, optional = false): number | undefined {
  const value = optional ? text(row, column) : required(row, column);
  if (value === undefined) return undefined;
  const parsed = DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(parsed)) throw new RowError(`${column} "${value}" is not a decimal number`);
  return parsed;
}

function tags(row: Row): Tag[] {
  try {
    return splitTags(row.Tags);
  } catch (error) {
    throw new RowError(`Tags: ${(error as Error).message}`);
  }
}

function periodBounds(period: string): [Date, Date] {
  const year = Number(period.slice(0, 4));
  const month = Number(period.slice(4, 6)) - 1;
  return [new Date(Date.UTC(year, month, 1)), new Date(Date.UTC(year, month + 1, 1))];
}

function location(metadata: ProviderMetadataSnapshot, regionId: string | undefined) {
  const mapping = regionId ? metadata.locationsByRegion.get(regionId) : undefined;
  if (!mapping) return {};
  const fields = {
    location: mapping.location,
    country: mapping.country,
    state: mapping.state,
    subregion: mapping.subregion,
    locationRegion: mapping.region,
    dataCenter: mapping.dataCenter,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== ''));
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;

function check<T>(build: () => Omit<T, 'tenantId'>): Checked<T> {
  try {
    return { ok: true, doc: build() };
  } catch (error) {
    if (error instanceof RowError) return { ok: false, reason: error.message };
    throw error;
  }
}

/**
 * One cost row → one line item. `cost` is `BilledCost` (what the invoice says) times the rate of
 * `BillingCurrency` into the corporate currency; `EffectiveCost` is kept as uploaded.
 */
export function checkCostRow(row: Row, ctx: FileContext): Checked<CostLineItem> {
  return check<CostLineItem>(() => {
    const billingAccountId = required(row, 'BillingAccountId');
    if (billingAccountId !== ctx.billingAccountId)
      throw new RowError(`BillingAccountId "${billingAccountId}" differs from its folder "${ctx.billingAccountId}"`);
    const start = date(row, 'ChargePeriodStart') as Date;
    const end = date(row, 'ChargePeriodEnd') as Date;
    const [from, to] = periodBounds(ctx.period);
    if (start < from || start >= to)
      throw new RowError(`ChargePeriodStart ${start.toISOString()} is outside the period ${ctx.period} of its folder`);
    if (end < start) throw new RowError('ChargePeriodEnd is before ChargePeriodStart');
    const billedCost = decimal(row, 'BilledCost') as number;
    const billingCurrency = required(row, 'BillingCurrency');
    if (!CURRENCY.test(billingCurrency)) throw new RowError(`BillingCurrency "${billingCurrency}" is not an ISO 4217 code`);
    const rate = ctx.conversion.rateOf(billingCurrency);
    if (rate === undefined) throw new RowError(`no exchange rate from ${billingCurrency} to ${ctx.conversion.corporateCurrency}`);
    const assetType = text(row, 'ResourceType');
    const region = text(row, 'RegionId');
    const doc: Omit<CostLineItem, 'tenantId'> = {
      uploadRefId: ctx.uploadRefId,
      providerName: ctx.providerName,
      billingAccountId,
      billingAccountName: text(row, 'BillingAccountName') ?? '',
      assetAccountId: text(row, 'SubAccountId') ?? ctx.assetAccountId,
      assetAccountName: text(row, 'SubAccountName'),
      resourceId: text(row, 'ResourceId'),
      resourceName: text(row, 'ResourceName'),
      assetType,
      category: (assetType && ctx.metadata.categoriesByAssetType.get(assetType)) || UNCATEGORIZED,
      serviceName: required(row, 'ServiceName'),
      region,
      ...location(ctx.metadata, region),
      period: ctx.period,
      cost: round(billedCost * rate),
      currency: ctx.conversion.corporateCurrency,
      billedCost,
      billingCurrency,
      effectiveCost: decimal(row, 'EffectiveCost', true),
      listCost: decimal(row, 'ListCost', true),
      pricingQuantity: decimal(row, 'PricingQuantity', true),
      pricingUnit: text(row, 'PricingUnit'),
      chargePeriodStart: start,
      chargePeriodEnd: end,
      chargeCategory: text(row, 'ChargeCategory'),
      tags: tags(row),
    };
    return withoutUndefined(doc);
  });
}

export function checkAssetRow(row: Row, ctx: FileContext): Checked<Asset> {
  return check<Asset>(() => {
    const assetType = text(row, 'ResourceType');
    const region = text(row, 'RegionId');
    return withoutUndefined({
      uploadRefId: ctx.uploadRefId,
      providerName: ctx.providerName,
      billingAccountId: ctx.billingAccountId,
      assetAccountId: ctx.assetAccountId ?? '',
      period: ctx.period,
      resourceId: required(row, 'ResourceId'),
      resourceName: text(row, 'ResourceName'),
      assetType,
      category: (assetType && ctx.metadata.categoriesByAssetType.get(assetType)) || UNCATEGORIZED,
      region,
      ...location(ctx.metadata, region),
      tags: tags(row),
    });
  });
}

export function checkUtilizationRow(row: Row, ctx: FileContext): Checked<Utilization> {
  return check<Utilization>(() => ({
    uploadRefId: ctx.uploadRefId,
    providerName: ctx.providerName,
    billingAccountId: ctx.billingAccountId,
    assetAccountId: ctx.assetAccountId ?? '',
    period: ctx.period,
    resourceId: required(row, 'ResourceId'),
    timestamp: date(row, 'Timestamp') as Date,
    metric: required(row, 'Metric'),
    value: decimal(row, 'Value') as number,
    unit: text(row, 'Unit') ?? '',
  }));
}

/** The driver would store `undefined` as null; absent fields stay absent. */
function withoutUndefined<T extends object>(doc: T): T {
  for (const key of Object.keys(doc) as (keyof T)[]) if (doc[key] === undefined) delete doc[key];
  return doc;
}
