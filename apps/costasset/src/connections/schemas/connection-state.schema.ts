import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const CONNECTION_PERIOD = 'ConnectionPeriod';
export const CONNECTION_MANIFEST = 'ConnectionManifest';

/**
 * What a connection last imported for one group of files (a billing period, or a folder of the
 * `focus-files` layout): the objects by key and ETag, and the upload they went into. A group whose
 * objects are all unchanged is not read again.
 */
export interface ConnectionPeriod {
  tenantId: string;
  connectionId: string;
  group: string;
  fingerprint: string;
  execution: string;
  uploadId: string;
  runId: string;
  importedAt: Date;
}

/** A manifest the sync has read, by key and ETag: an unchanged manifest is never read again. */
export interface ConnectionManifest {
  tenantId: string;
  connectionId: string;
  key: string;
  etag: string;
  execution: string;
  billingPeriod: string;
  deliveredAt?: Date;
  dataKeys: string[];
}

export const ConnectionPeriodSchema = new Schema<ConnectionPeriod>(
  {
    connectionId: { type: String, required: true },
    group: { type: String, required: true },
    fingerprint: { type: String, required: true },
    execution: { type: String, required: true },
    uploadId: { type: String, required: true },
    runId: { type: String, required: true },
    importedAt: { type: Date, required: true },
  },
  { collection: 'connection_periods', versionKey: false },
);
ConnectionPeriodSchema.plugin(tenantScopedPlugin);
ConnectionPeriodSchema.index({ tenantId: 1, connectionId: 1, group: 1 }, { unique: true });

export const ConnectionManifestSchema = new Schema<ConnectionManifest>(
  {
    connectionId: { type: String, required: true },
    key: { type: String, required: true },
    etag: { type: String, required: true },
    execution: { type: String, required: true },
    billingPeriod: { type: String, required: true },
    deliveredAt: Date,
    dataKeys: { type: [String], default: [] },
  },
  { collection: 'connection_manifests', versionKey: false },
);
ConnectionManifestSchema.plugin(tenantScopedPlugin);
ConnectionManifestSchema.index({ tenantId: 1, connectionId: 1, key: 1 }, { unique: true });
