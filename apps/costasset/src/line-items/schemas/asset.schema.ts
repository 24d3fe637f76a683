import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import type { Tag } from '../tags';
import { TagSchema } from './cost-line-item.schema';

export const ASSET = 'Asset';

export interface Asset {
  tenantId: string;
  uploadRefId: string;
  providerName: string;
  billingAccountId: string;
  assetAccountId: string;
  period: string;
  resourceId: string;
  resourceName?: string;
  assetType?: string;
  category: string;
  region?: string;
  location?: string;
  country?: string;
  tags: Tag[];
}

export const AssetSchema = new Schema<Asset>(
  {
    uploadRefId: { type: String, required: true },
    providerName: { type: String, required: true },
    billingAccountId: { type: String, required: true },
    assetAccountId: { type: String, required: true },
    period: { type: String, required: true },
    resourceId: { type: String, required: true },
    resourceName: String,
    assetType: String,
    category: String,
    region: String,
    location: String,
    country: String,
    tags: { type: [TagSchema], default: [] },
  },
  { collection: 'assets', versionKey: false },
);
AssetSchema.plugin(tenantScopedPlugin);
AssetSchema.index({ tenantId: 1, period: 1 });
AssetSchema.index({ tenantId: 1, providerName: 1, period: 1 });
AssetSchema.index({ tenantId: 1, uploadRefId: 1 });
AssetSchema.index({ tenantId: 1, resourceId: 1 });
// Pages of a tenant's assets in _id order, whatever else the filter holds.
AssetSchema.index({ tenantId: 1, _id: 1 });
// The list's other filters (ListAssetsQuery): equality on the field, then pages in `_id` order.
for (const field of ['billingAccountId', 'assetAccountId', 'assetType', 'category', 'region'])
  AssetSchema.index({ tenantId: 1, [field]: 1, _id: 1 });
