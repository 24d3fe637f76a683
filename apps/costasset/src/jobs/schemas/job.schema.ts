import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const JOB = 'Job';
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'completed_with_errors', 'failed', 'terminated'] as const;
/** Statuses a job does not leave (except by a retry of a failed or terminated one). */
export const FINAL_JOB_STATUSES: JobStatus[] = ['succeeded', 'completed_with_errors', 'failed', 'terminated'];
export type JobStatus = (typeof JOB_STATUSES)[number];

/** What `done` and `total` count: rows where the job knows them in advance, bytes of the files read otherwise. */
export const PROGRESS_UNITS = ['rows', 'bytes', 'files', 'accounts'] as const;
export type ProgressUnit = (typeof PROGRESS_UNITS)[number];

export interface JobProgress {
  done: number;
  total: number;
  percent: number;
  unit?: ProgressUnit;
  /** Rows read so far, when the unit is not rows. */
  rows?: number;
}

export interface JobRecord {
  tenantId: string;
  jobId: string;
  type: string;
  status: JobStatus;
  payload: Record<string, unknown>;
  progress: JobProgress;
  /** Deliveries of the current run plus those of earlier runs. */
  attempts: number;
  /** Incremented by a retry; deliveries of an older run are ignored. */
  run: number;
  terminateRequested: boolean;
  error?: string;
  result?: Record<string, unknown>;
  startedAt?: Date;
  finishedAt?: Date;
  createdAt?: Date;
  updatedAt?: Date;
}

export const JobSchema = new Schema<JobRecord>(
  {
    jobId: { type: String, required: true },
    type: { type: String, required: true },
    status: { type: String, enum: JOB_STATUSES, required: true },
    payload: { type: Schema.Types.Mixed, default: {} },
    progress: {
      done: { type: Number, default: 0 },
      total: { type: Number, default: 0 },
      percent: { type: Number, default: 0 },
      unit: { type: String, enum: PROGRESS_UNITS },
      rows: Number,
    },
    attempts: { type: Number, default: 0 },
    run: { type: Number, default: 0 },
    terminateRequested: { type: Boolean, default: false },
    error: String,
    result: Schema.Types.Mixed,
    startedAt: Date,
    finishedAt: Date,
  },
  { collection: 'jobs', timestamps: true, versionKey: false, minimize: false },
);
JobSchema.plugin(tenantScopedPlugin);
JobSchema.index({ jobId: 1 }, { unique: true });
JobSchema.index({ tenantId: 1, type: 1, status: 1 });
// Housekeeping expires a tenant's finished jobs by status and end time.
JobSchema.index({ tenantId: 1, status: 1, finishedAt: 1 });
