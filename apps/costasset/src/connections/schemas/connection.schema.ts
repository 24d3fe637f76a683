import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const CONNECTION = 'Connection';
export const CONNECTION_TYPES = ['s3', 'azure-blob'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];
export const CONNECTION_LAYOUTS = ['aws-data-exports', 'azure-exports', 'focus-files'] as const;
export type ConnectionLayout = (typeof CONNECTION_LAYOUTS)[number];

/** Where the exports are: `s3` uses endpoint, region, bucket; `azure-blob` uses accountUrl, container. */
export interface ConnectionSource {
  endpoint?: string;
  region?: string;
  bucket?: string;
  accountUrl?: string;
  container?: string;
  prefix: string;
}

/** A sync's schedule: a cron expression (in `timezone`, UTC by default) or an interval. */
export interface ConnectionSchedule {
  cron?: string;
  intervalMinutes?: number;
  timezone: string;
}

/** What the last test of the connection found. */
export interface ConnectionCheck {
  ok: boolean;
  checkedAt: Date;
  objects: number;
  billingPeriods: string[];
  problem?: string;
}

/**
 * A bucket or container that a cloud writes its billing exports to (docs/connections.md). The
 * credentials are sealed (`sealedCredentials`, a JSON object); only the access key id (or account
 * name) is kept in clear, for display. `nextSyncAt` is the schedule's next run, claimed by one instance at a time;
 * `lease` names the one sync job allowed to run on the connection.
 */
export interface Connection {
  tenantId: string;
  connectionId: string;
  name: string;
  type: ConnectionType;
  layout: ConnectionLayout;
  source: ConnectionSource;
  /** Shown in clear: the s3 access key id, or the Azure account of a connection signing with its key. */
  accessKeyId?: string;
  accountName?: string;
  sealedCredentials: string;
  schedule?: ConnectionSchedule;
  enabled: boolean;
  nextSyncAt?: Date | null;
  lease?: { jobId: string; until: Date } | null;
  lastCheck?: ConnectionCheck;
  lastRunId?: string;
  createdBy: { userId: string; idpId: string };
  createdAt?: Date;
  updatedAt?: Date;
}

export const ConnectionSchema = new Schema<Connection>(
  {
    connectionId: { type: String, required: true },
    name: { type: String, required: true },
    type: { type: String, enum: CONNECTION_TYPES, required: true },
    layout: { type: String, enum: CONNECTION_LAYOUTS, required: true },
    source: { type: Schema.Types.Mixed, required: true },
    accessKeyId: String,
    accountName: String,
    sealedCredentials: { type: String, required: true },
    schedule: { type: Schema.Types.Mixed, default: undefined },
    enabled: { type: Boolean, default: true },
    nextSyncAt: { type: Date, default: null },
    lease: { type: Schema.Types.Mixed, default: null },
    lastCheck: { type: Schema.Types.Mixed, default: undefined },
    lastRunId: String,
    createdBy: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'connections', timestamps: true, versionKey: false, minimize: false },
);
ConnectionSchema.plugin(tenantScopedPlugin);
ConnectionSchema.index({ tenantId: 1, connectionId: 1 }, { unique: true });
ConnectionSchema.index({ tenantId: 1, name: 1 }, { unique: true });
// The scheduler's sweep across tenants: enabled connections whose next run is due.
ConnectionSchema.index({ enabled: 1, nextSyncAt: 1 });
