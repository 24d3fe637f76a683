import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import type { Tag } from '../tags';

export const COST_LINE_ITEM = 'CostLineItem';

export interface CustomColumn {
  /** The `x_` column name as the file wrote it. */
  name: string;
  value: string;
}

/**
 * One cost row of a GPD file or a FOCUS export (docs/gpd-format.md, docs/focus.md#column-mapping). Written in bulk on
 * the driver by enrichment and the FOCUS import. Amounts are binary doubles, stored as given
 * (never rounded); `cost` is `billedCost` in the corporate currency.
 */
export interface CostLineItem {
  tenantId: string;
  uploadRefId: string;
  /** File inside the upload (GPD: path in the zip; FOCUS: part name) and its 1-based line (CSV, header = 1) or row (Parquet). */
  sourceFile?: string;
  sourceRow?: number;
  /** The part of the upload that wrote it, when its parts are imported as separate jobs (what a part's retry removes first). */
  uploadPart?: number;
  /** The row's `Id` when the export carries one. */
  sourceId?: string;
  focusVersion?: string;
  providerName: string;
  publisherName?: string;
  serviceProviderName?: string;
  hostProviderName?: string;
  invoiceIssuerName?: string;
  billingAccountId: string;
  billingAccountName: string;
  billingAccountType?: string;
  assetAccountId?: string;
  assetAccountName?: string;
  subAccountType?: string;
  resourceId?: string;
  resourceName?: string;
  assetType?: string;
  /** Provider metadata's mapping of the asset type (or service name), else FOCUS ServiceCategory, else `Uncategorized`. */
  category: string;
  serviceCategory?: string;
  serviceSubcategory?: string;
  serviceName?: string;
  region?: string;
  regionName?: string;
  availabilityZone?: string;
  location?: string;
  country?: string;
  state?: string;
  subregion?: string;
  locationRegion?: string;
  dataCenter?: string;
  /** `YYYYMM` of ChargePeriodStart (UTC). */
  period: string;
  /** `YYYYMM` of BillingPeriodStart (UTC); the charge period's month when the file has no billing period. */
  billingPeriod: string;
  billingPeriodStart?: Date;
  billingPeriodEnd?: Date;
  cost: number;
  currency: string;
  billedCost: number;
  billingCurrency: string;
  effectiveCost?: number;
  listCost?: number;
  contractedCost?: number;
  listUnitPrice?: number;
  contractedUnitPrice?: number;
  pricingQuantity?: number;
  pricingUnit?: string;
  pricingCategory?: string;
  consumedQuantity?: number;
  consumedUnit?: string;
  pricingCurrency?: string;
  pricingCurrencyContractedUnitPrice?: number;
  pricingCurrencyEffectiveCost?: number;
  pricingCurrencyListUnitPrice?: number;
  chargePeriodStart: Date;
  chargePeriodEnd?: Date;
  chargeCategory?: string;
  chargeClass?: string;
  chargeDescription?: string;
  chargeFrequency?: string;
  commitmentDiscountId?: string;
  commitmentDiscountName?: string;
  commitmentDiscountCategory?: string;
  commitmentDiscountType?: string;
  commitmentDiscountStatus?: string;
  commitmentDiscountQuantity?: number;
  commitmentDiscountUnit?: string;
  capacityReservationId?: string;
  capacityReservationStatus?: string;
  invoiceId?: string;
  skuId?: string;
  skuPriceId?: string;
  skuMeter?: string;
  /** JSON text as exported. */
  skuPriceDetails?: string;
  allocatedMethodId?: string;
  allocatedMethodDetails?: string;
  allocatedResourceId?: string;
  allocatedResourceName?: string;
  allocatedTags?: string;
  contractApplied?: string;
  tags: Tag[];
  customColumns?: CustomColumn[];
}

export const TagSchema = new Schema<Tag>({ group: String, key: String, value: String, name: String, type: String }, { _id: false });

const text = String;
const amount = Number;

export const CostLineItemSchema = new Schema<CostLineItem>(
  {
    uploadRefId: { type: String, required: true },
    sourceFile: text,
    sourceRow: Number,
    uploadPart: Number,
    sourceId: text,
    focusVersion: text,
    providerName: { type: String, required: true },
    publisherName: text,
    serviceProviderName: text,
    hostProviderName: text,
    invoiceIssuerName: text,
    billingAccountId: { type: String, required: true },
    billingAccountName: text,
    billingAccountType: text,
    assetAccountId: text,
    assetAccountName: text,
    subAccountType: text,
    resourceId: text,
    resourceName: text,
    assetType: text,
    category: text,
    serviceCategory: text,
    serviceSubcategory: text,
    serviceName: text,
    region: text,
    regionName: text,
    availabilityZone: text,
    location: text,
    country: text,
    state: text,
    subregion: text,
    locationRegion: text,
    dataCenter: text,
    period: { type: String, required: true },
    billingPeriod: text,
    billingPeriodStart: Date,
    billingPeriodEnd: Date,
    cost: amount,
    currency: text,
    billedCost: amount,
    billingCurrency: text,
    effectiveCost: amount,
    listCost: amount,
    contractedCost: amount,
    listUnitPrice: amount,
    contractedUnitPrice: amount,
    pricingQuantity: amount,
    pricingUnit: text,
    pricingCategory: text,
    consumedQuantity: amount,
    consumedUnit: text,
    pricingCurrency: text,
    pricingCurrencyContractedUnitPrice: amount,
    pricingCurrencyEffectiveCost: amount,
    pricingCurrencyListUnitPrice: amount,
    chargePeriodStart: Date,
    chargePeriodEnd: Date,
    chargeCategory: text,
    chargeClass: text,
    chargeDescription: text,
    chargeFrequency: text,
    commitmentDiscountId: text,
    commitmentDiscountName: text,
    commitmentDiscountCategory: text,
    commitmentDiscountType: text,
    commitmentDiscountStatus: text,
    commitmentDiscountQuantity: amount,
    commitmentDiscountUnit: text,
    capacityReservationId: text,
    capacityReservationStatus: text,
    invoiceId: text,
    skuId: text,
    skuPriceId: text,
    skuMeter: text,
    skuPriceDetails: text,
    allocatedMethodId: text,
    allocatedMethodDetails: text,
    allocatedResourceId: text,
    allocatedResourceName: text,
    allocatedTags: text,
    contractApplied: text,
    tags: { type: [TagSchema], default: [] },
    customColumns: { type: [{ _id: false, name: String, value: String }], default: undefined },
  },
  { collection: 'cost_line_items', versionKey: false },
);
CostLineItemSchema.plugin(tenantScopedPlugin);
CostLineItemSchema.index({ tenantId: 1, period: 1 });
CostLineItemSchema.index({ tenantId: 1, providerName: 1, period: 1 });
CostLineItemSchema.index({ tenantId: 1, uploadRefId: 1 });
CostLineItemSchema.index({ tenantId: 1, billingAccountId: 1, period: 1 });
// Pages of a tenant's line items in _id order, whatever else the filter holds.
CostLineItemSchema.index({ tenantId: 1, _id: 1 });
/**
 * The list's selective filters (ListCostLineItemsQuery), each on its own index: equality on the
 * field, then pages in `_id` order, so a page filtered by one resource or invoice reads its own rows
 * only. The few-valued ones (category, region, country, charge category, currency…) are read
 * through an index in page order and filtered: an index each would make every import write 13 more
 * index entries a row, which halved the insert rate (docs/rollups.md).
 */
export const LINE_ITEM_FILTER_INDEXED_FIELDS = ['billingAccountName', 'assetAccountId', 'resourceId', 'serviceName', 'invoiceId'] as const;
for (const field of LINE_ITEM_FILTER_INDEXED_FIELDS) CostLineItemSchema.index({ tenantId: 1, [field]: 1, _id: 1 });
