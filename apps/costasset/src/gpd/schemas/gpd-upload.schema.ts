import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const GPD_UPLOAD = 'GpdUpload';
export const GPD_STATUSES = ['awaiting_upload', 'uploaded', 'enriching', 'enriched', 'failed', 'cleaned'] as const;
export type GpdStatus = (typeof GPD_STATUSES)[number];

export interface RejectedRow {
  file: string;
  /** Line in the CSV (1 = header); 0 for a problem of the archive itself. */
  line: number;
  reason: string;
}

export interface GpdUpload {
  tenantId: string;
  refId: string;
  providerName: string;
  fileName: string;
  objectKey: string;
  status: GpdStatus;
  jobId?: string;
  sizeBytes?: number;
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
  errors: RejectedRow[];
  createdAt?: Date;
  updatedAt?: Date;
}

export const GpdUploadSchema = new Schema<GpdUpload>(
  {
    refId: { type: String, required: true },
    providerName: { type: String, required: true },
    fileName: { type: String, required: true },
    objectKey: { type: String, required: true },
    status: { type: String, enum: GPD_STATUSES, required: true },
    jobId: String,
    sizeBytes: Number,
    rowsRead: { type: Number, default: 0 },
    rowsWritten: { type: Number, default: 0 },
    rowsRejected: { type: Number, default: 0 },
    errors: { type: [{ _id: false, file: String, line: Number, reason: String }], default: [] },
  },
  { collection: 'gpd_uploads', timestamps: true, versionKey: false, suppressReservedKeysWarning: true },
);
GpdUploadSchema.plugin(tenantScopedPlugin);
GpdUploadSchema.index({ refId: 1 }, { unique: true });
// Uploads are listed (pages in _id order) and found by provider case-insensitively (the queries
// carry this collation). Its own name: indexes this replaces may still exist in older databases.
GpdUploadSchema.index({ tenantId: 1, providerName: 1, _id: 1 }, { name: 'tenantId_1_providerName_1__id_1_ci', collation: { locale: 'en', strength: 2 } });
// Housekeeping marks a tenant's enriched or failed uploads as cleaned.
GpdUploadSchema.index({ tenantId: 1, status: 1 });
