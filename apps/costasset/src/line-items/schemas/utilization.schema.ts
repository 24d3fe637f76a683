import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const UTILIZATION = 'Utilization';

export interface Utilization {
  tenantId: string;
  uploadRefId: string;
  providerName: string;
  billingAccountId: string;
  assetAccountId: string;
  period: string;
  resourceId: string;
  timestamp: Date;
  metric: string;
  value: number;
  unit: string;
}

export const UtilizationSchema = new Schema<Utilization>(
  {
    uploadRefId: { type: String, required: true },
    providerName: { type: String, required: true },
    billingAccountId: String,
    assetAccountId: String,
    period: String,
    resourceId: { type: String, required: true },
    timestamp: { type: Date, required: true },
    metric: { type: String, required: true },
    value: Number,
    unit: String,
  },
  { collection: 'utilization', versionKey: false },
);
UtilizationSchema.plugin(tenantScopedPlugin);
UtilizationSchema.index({ tenantId: 1, uploadRefId: 1 });
UtilizationSchema.index({ tenantId: 1, resourceId: 1, timestamp: 1 });
