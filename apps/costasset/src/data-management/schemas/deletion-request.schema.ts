import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const DELETION_REQUEST = 'DeletionRequest';
export const DELETION_STATUSES = ['pending', 'running', 'completed', 'cancelled', 'failed'] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

export interface DeletionFilters {
  providerName?: string;
  billingAccountIds?: string[];
  periodFrom?: string;
  periodTo?: string;
}

export interface RowsRemoved {
  costLineItems: number;
  assets: number;
  utilization: number;
}

export interface DeletionRequest {
  tenantId: string;
  filters: DeletionFilters;
  reason?: string;
  requestedBy: string;
  status: DeletionStatus;
  jobId?: string;
  rowsRemoved: number;
  removed: RowsRemoved;
  error?: string;
  startedAt?: Date;
  finishedAt?: Date;
  createdAt?: Date;
  updatedAt?: Date;
}

export const DeletionRequestSchema = new Schema<DeletionRequest>(
  {
    filters: {
      providerName: String,
      billingAccountIds: { type: [String], default: undefined },
      periodFrom: String,
      periodTo: String,
    },
    reason: String,
    requestedBy: { type: String, required: true },
    status: { type: String, enum: DELETION_STATUSES, required: true },
    jobId: String,
    rowsRemoved: { type: Number, default: 0 },
    removed: {
      costLineItems: { type: Number, default: 0 },
      assets: { type: Number, default: 0 },
      utilization: { type: Number, default: 0 },
    },
    error: String,
    startedAt: Date,
    finishedAt: Date,
  },
  { collection: 'deletion_requests', timestamps: true, versionKey: false, minimize: false },
);
DeletionRequestSchema.plugin(tenantScopedPlugin);
DeletionRequestSchema.index({ tenantId: 1, _id: -1 });
// A Cost Data Manager's own requests, newest first.
DeletionRequestSchema.index({ tenantId: 1, requestedBy: 1, _id: -1 });
