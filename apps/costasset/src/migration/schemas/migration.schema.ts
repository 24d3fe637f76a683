import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const MIGRATION = 'AccountMigration';
export const MIGRATION_STATUSES = ['started', 'completed', 'failed', 'terminated'] as const;
export type MigrationStatus = (typeof MIGRATION_STATUSES)[number];

export interface AccountMigration {
  tenantId: string;
  migrationId: string;
  legacyURL: string;
  userName: string;
  /** AES-256-GCM sealed API token; removed when the job ends. */
  sealedToken?: string;
  status: MigrationStatus;
  jobId?: string;
  requestedBy: string;
  succeeded: number;
  failed: number;
  error?: string;
  finishedAt?: Date;
  createdAt?: Date;
}

export const AccountMigrationSchema = new Schema<AccountMigration>(
  {
    migrationId: { type: String, required: true },
    legacyURL: { type: String, required: true },
    userName: { type: String, required: true },
    sealedToken: String,
    status: { type: String, enum: MIGRATION_STATUSES, required: true },
    jobId: String,
    requestedBy: { type: String, required: true },
    succeeded: { type: Number, default: 0 },
    failed: { type: Number, default: 0 },
    error: String,
    finishedAt: Date,
  },
  { collection: 'account_migrations', timestamps: true, versionKey: false },
);
AccountMigrationSchema.plugin(tenantScopedPlugin);
AccountMigrationSchema.index({ migrationId: 1 }, { unique: true });
AccountMigrationSchema.index({ tenantId: 1, _id: -1 });
