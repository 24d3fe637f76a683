import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import type { Tag } from '../tags';

export const COST_LINE_ITEM = 'CostLineItem';

/** One enriched FOCUS cost row (contract §5). Written in bulk on the driver by enrichment. */
export interface CostLineItem {
  tenantId: string;
  uploadRefId: string;
  providerName: string;
  billingAccountId: string;
  billingAccountName: string;
  assetAccountId?: string;
  assetAccountName?: string;
  resourceId?: string;
  resourceName?: string;
  assetType?: string;
  category: string;
  serviceName: string;
  region?: string;
  location?: string;
  country?: string;
  state?: string;
  subregion?: string;
  locationRegion?: string;
  dataCenter?: string;
  period: string;
  cost: number;
  currency: string;
  billedCost: number;
  billingCurrency: string;
  effectiveCost?: number;
  listCost?: number;
  pricingQuantity?: number;
  pricingUnit?: string;
  chargePeriodStart: Date;
  chargePeriodEnd: Date;
  chargeCategory?: string;
  tags: Tag[];
}

export const TagSchema = new Schema<Tag>({ group: String, key: String, value: String }, { _id: false });

export const CostLineItemSchema = new Schema<CostLineItem>(
  {
    uploadRefId: { type: String, required: true },
    providerName: { type: String, required: true },
    billingAccountId: { type: String, required: true },
    billingAccountName: String,
    assetAccountId: String,
    assetAccountName: String,
    resourceId: String,
    resourceName: String,
    assetType: String,
    category: String,
    serviceName: String,
    region: String,
    location: String,
    country: String,
    state: String,
    subregion: String,
    locationRegion: String,
    dataCenter: String,
    period: { type: String, required: true },
    cost: Number,
    currency: String,
    billedCost: Number,
    billingCurrency: String,
    effectiveCost: Number,
    listCost: Number,
    pricingQuantity: Number,
    pricingUnit: String,
    chargePeriodStart: Date,
    chargePeriodEnd: Date,
    chargeCategory: String,
    tags: { type: [TagSchema], default: [] },
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
