import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const JOB = 'Job';
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'completed_with_errors', 'failed', 'terminated'] as const;
/** Statuses a job does not leave (except by a retry of a failed or terminated one). */
export const FINAL_JOB_STATUSES: JobStatus[] = ['succeeded', 'completed_with_errors', 'failed', 'terminated'];
export type JobStatus = (typeof JOB_STATUSES)[number];

/** What `done` and `total` count: rows where the job knows them in advance, bytes of the files read otherwise. */
export const PROGRESS_UNITS = ['rows', 'bytes', 'files', 'accounts', 'series', 'uploads'] as const;
export type ProgressUnit = (typeof PROGRESS_UNITS)[number];

export interface JobProgress {
  done: number;
  total: number;
  percent: number;
  unit?: ProgressUnit;
  /** Rows read so far, when the unit is not rows. */
  rows?: number;
}

/** Who asked for a job: it and the System Admins read and terminate it. */
export interface JobSubmitter {
  userId: string;
  idpId: string;
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
  /** Absent on jobs the service starts by itself (and on jobs older than the field): System Admins only. */
  submittedBy?: JobSubmitter;
  error?: string;
  result?: Record<string, unknown>;
  startedAt?: Date;
  /** Written by the running attempt every few seconds: a running job without it for long has lost its worker. */
  heartbeatAt?: Date;
  /** The job ended but its handler's clean-up (removing partial rows) has not completed yet. */
  cleanupPending?: boolean;
  finishedAt?: Date;
  createdAt?: Date;
  updatedAt?: Date;
  /** A child job (a part of a larger one): its parent's id and run, and its place among the parent's children. */
  parentJobId?: string;
  parentRun?: number;
  childIndex?: number;
  /** The children this run started: their type and payloads (spawned again, idempotently, after a crash). */
  children?: JobChildren;
  /** Running, but no attempt runs it: it waits for its children, and the last one to succeed resumes it. */
  waiting?: boolean;
  /** What a child hands to its parent besides its result (kept out of every response). */
  handoff?: Record<string, unknown>;
}

export interface JobChildren {
  type: string;
  payloads: Record<string, unknown>[];
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
    submittedBy: {
      type: new Schema<JobSubmitter>({ userId: { type: String, required: true }, idpId: { type: String, required: true } }, { _id: false }),
      default: undefined,
    },
    error: String,
    result: Schema.Types.Mixed,
    startedAt: Date,
    heartbeatAt: Date,
    cleanupPending: Boolean,
    finishedAt: Date,
    parentJobId: String,
    parentRun: Number,
    childIndex: Number,
    children: { type: Schema.Types.Mixed, default: undefined },
    waiting: Boolean,
    handoff: Schema.Types.Mixed,
  },
  { collection: 'jobs', timestamps: true, versionKey: false, minimize: false },
);
JobSchema.plugin(tenantScopedPlugin);
JobSchema.index({ jobId: 1 }, { unique: true });
JobSchema.index({ tenantId: 1, type: 1, status: 1 });
// The children of a job, in order.
JobSchema.index({ tenantId: 1, parentJobId: 1, childIndex: 1 });
// A member's own jobs, in pages.
JobSchema.index({ tenantId: 1, 'submittedBy.userId': 1, 'submittedBy.idpId': 1 });
// Housekeeping expires a tenant's finished jobs by status and end time.
JobSchema.index({ tenantId: 1, status: 1, finishedAt: 1 });
// The reaper's sweep, across tenants: running jobs by heartbeat, ended jobs whose clean-up is pending.
JobSchema.index({ status: 1, heartbeatAt: 1 });
JobSchema.index({ cleanupPending: 1, finishedAt: 1 });
