import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const BILLING_ACCOUNT = 'BillingAccount';

/** A billing account imported from the legacy service (one per tenant, provider and id). */
export interface BillingAccount {
  tenantId: string;
  accountId: string;
  provider: string;
  name: string;
  currency?: string;
  status?: string;
  parentId?: string;
  migrationId: string;
  migratedAt: Date;
}

export const BillingAccountSchema = new Schema<BillingAccount>(
  {
    accountId: { type: String, required: true },
    provider: { type: String, required: true },
    name: { type: String, required: true },
    currency: String,
    status: String,
    parentId: String,
    migrationId: { type: String, required: true },
    migratedAt: { type: Date, required: true },
  },
  { collection: 'billing_accounts', versionKey: false },
);
BillingAccountSchema.plugin(tenantScopedPlugin);
BillingAccountSchema.index({ tenantId: 1, provider: 1, accountId: 1 }, { unique: true });
