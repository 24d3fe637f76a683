import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const MIGRATION_RECORD = 'MigrationRecord';
export const MIGRATION_RECORD_STATUSES = ['succeeded', 'failed'] as const;
export type MigrationRecordStatus = (typeof MIGRATION_RECORD_STATUSES)[number];

/** The outcome of one legacy account record in one migration. */
export interface MigrationRecord {
  tenantId: string;
  migrationId: string;
  accountId: string;
  provider?: string;
  name?: string;
  status: MigrationRecordStatus;
  reason?: string;
  createdAt?: Date;
  updatedAt?: Date;
}

export const MigrationRecordSchema = new Schema<MigrationRecord>(
  {
    migrationId: { type: String, required: true },
    accountId: { type: String, required: true },
    provider: String,
    name: String,
    status: { type: String, enum: MIGRATION_RECORD_STATUSES, required: true },
    reason: String,
  },
  { collection: 'migration_records', timestamps: true, versionKey: false },
);
MigrationRecordSchema.plugin(tenantScopedPlugin);
MigrationRecordSchema.index({ tenantId: 1, migrationId: 1, provider: 1, accountId: 1 }, { unique: true });
// Pages of one migration's records in the order they were recorded.
MigrationRecordSchema.index({ tenantId: 1, migrationId: 1, _id: 1 });
