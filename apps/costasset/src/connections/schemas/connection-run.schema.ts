import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const CONNECTION_RUN = 'ConnectionRun';
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'completed_with_errors', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const FILE_OUTCOMES = ['imported', 'skipped', 'rejected'] as const;
export type FileOutcome = (typeof FILE_OUTCOMES)[number];
/** The most file outcomes a run keeps (the counts are always whole). */
export const MAX_RUN_FILES = 2000;

/** One object the sync listed, and what it did with it. */
export interface RunFile {
  key: string;
  etag: string;
  sizeBytes: number;
  outcome: FileOutcome;
  reason?: string;
  billingPeriod?: string;
  execution?: string;
  uploadId?: string;
}

/** A billing period the sync imported as one upload. */
export interface RunImport {
  billingPeriod: string;
  execution: string;
  uploadId: string;
  jobId: string;
  files: number;
  bytes: number;
}

/** One sync of a connection: what it found, imported, skipped (and why) and rejected. */
export interface ConnectionRun {
  tenantId: string;
  connectionId: string;
  runId: string;
  trigger: 'manual' | 'schedule';
  requestedBy?: { userId: string; idpId: string };
  status: RunStatus;
  startedAt: Date;
  finishedAt?: Date;
  found: number;
  imported: number;
  skipped: number;
  rejected: number;
  bytesImported: number;
  /** Files and bytes copied so far of those to import. */
  progress: { filesDone: number; filesTotal: number; bytesDone: number; bytesTotal: number };
  imports: RunImport[];
  files: RunFile[];
  filesTruncated: boolean;
  error?: string;
}

export const ConnectionRunSchema = new Schema<ConnectionRun>(
  {
    connectionId: { type: String, required: true },
    runId: { type: String, required: true },
    trigger: { type: String, required: true },
    requestedBy: { type: Schema.Types.Mixed, default: undefined },
    status: { type: String, enum: RUN_STATUSES, required: true },
    startedAt: { type: Date, required: true },
    finishedAt: Date,
    found: { type: Number, default: 0 },
    imported: { type: Number, default: 0 },
    skipped: { type: Number, default: 0 },
    rejected: { type: Number, default: 0 },
    bytesImported: { type: Number, default: 0 },
    progress: { type: Schema.Types.Mixed, default: () => ({ filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 }) },
    imports: { type: Schema.Types.Mixed, default: () => [] },
    files: { type: Schema.Types.Mixed, default: () => [] },
    filesTruncated: { type: Boolean, default: false },
    error: String,
  },
  { collection: 'connection_runs', versionKey: false },
);
ConnectionRunSchema.plugin(tenantScopedPlugin);
ConnectionRunSchema.index({ tenantId: 1, runId: 1 }, { unique: true });
// A connection's history, newest first.
ConnectionRunSchema.index({ tenantId: 1, connectionId: 1, _id: -1 });
