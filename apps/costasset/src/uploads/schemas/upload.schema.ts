import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import type { RejectedRow, RuleCount } from '../../imports/report/ingest-report';
import type { VisibilityGrant } from '../../resource-groups/visibility.service';

export type { RejectedRow } from '../../imports/report/ingest-report';

/** The mongoose model name (and `gpd_uploads` the collection): both kept from the first version, so stored uploads stay readable. */
export const UPLOAD_MODEL = 'GpdUpload';
/**
 * GPD: `awaiting_upload → uploaded → enriching → enriched | enriched_with_errors | failed`.
 * FOCUS: `awaiting_upload → importing → imported | imported_with_errors | failed`; a FOCUS import
 * (or an extension flow's GPD file) whose every row was replaced by a newer one becomes `superseded`.
 * Both: `cleaned` once its files and rows are removed. Only UploadsRepository changes a status.
 */
export const UPLOAD_STATUSES = [
  'awaiting_upload',
  'uploaded',
  'enriching',
  'enriched',
  'enriched_with_errors',
  'importing',
  'imported',
  'imported_with_errors',
  'failed',
  'cleaned',
  'superseded',
] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

/** Upload statuses of work that wrote rows which count (both families). */
export const LOADED_STATUSES: UploadStatus[] = ['enriched', 'enriched_with_errors', 'imported', 'imported_with_errors'];
/** An import (GPD enrichment or FOCUS import) is running on the upload. */
export const IMPORTING_STATUSES: UploadStatus[] = ['enriching', 'importing'];
/** Statuses an import has ended in: importing once more needs `again` / `retry`. */
export const IMPORT_ENDED_STATUSES: UploadStatus[] = [...LOADED_STATUSES, 'failed', 'superseded'];

export const UPLOAD_FORMATS = ['gpd', 'focus'] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];

export const FOCUS_FILE_FORMATS = ['csv', 'csv.gz', 'parquet'] as const;
export type FocusFileFormat = (typeof FOCUS_FILE_FORMATS)[number];

/** One file of a FOCUS upload (exports come in parts), with what its import found. */
export interface UploadPart {
  name: string;
  objectKey: string;
  /** The size the client declared when the upload was created: its URL takes that length only, and the import checks it. */
  declaredBytes?: number;
  format: FocusFileFormat;
  sizeBytes?: number;
  focusVersion?: string;
  /** How the version was found: `declared` by the client, file `metadata`, or the `columns`. */
  versionSource?: 'declared' | 'metadata' | 'columns';
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
}

/**
 * The rows an import holds for one (provider, billing account, billing period): the unit a newer
 * import of the same data replaces, and what a rollup keys its contributions by.
 */
export interface ImportScope {
  providerName: string;
  billingAccountId: string;
  billingPeriod: string;
  rows: number;
}

export interface Replacement {
  uploadRefId: string;
  rowsRemoved: number;
}

export interface Conformance {
  rules: RuleCount[];
}

/** The connection, sync run and delivery (billing period and execution) whose files a FOCUS upload holds. */
export interface UploadConnectionSource {
  connectionId: string;
  runId: string;
  group: string;
  execution: string;
  billingPeriod?: string;
}

/** The user who created an upload: it sees the upload and its files whatever rows they hold. */
export interface UploadCreator {
  userId: string;
  idpId: string;
}

export interface Upload {
  tenantId: string;
  refId: string;
  format: UploadFormat;
  /** GPD: the provider of the zip. FOCUS: the name given at creation (a label); rows carry their own ProviderName. */
  providerName?: string;
  fileName: string;
  objectKey: string;
  /**
   * The size declared for the object at `objectKey` (POST /v1/gpd `sizeBytes`): its URL takes that length only, and the import
   * checks it.
   */
  declaredBytes?: number;
  status: UploadStatus;
  jobId?: string;
  sizeBytes?: number;
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
  errors: RejectedRow[];
  conformance?: Conformance;
  /** FOCUS uploads. */
  parts?: UploadPart[];
  declaredVersion?: string;
  providers?: string[];
  scopes?: ImportScope[];
  replaced?: Replacement[];
  /** When the import was asked for: of two imports of one scope, the later request wins. */
  importRequestedAt?: Date;
  /** Set while a FOCUS import removes the rows it replaces (see the replacement rule). */
  replacing?: boolean;
  supersededBy?: string[];
  /** Extension flows: the raw upload the GPD file was made from (a newer flow of it replaces this one). */
  source?: { providerCode: string; rawFile: string };
  /** FOCUS uploads a data connection's sync made: the delivery its files came from (docs/connections.md). */
  connection?: UploadConnectionSource;
  /** Absent on uploads made by the service itself (extension flows) and on older records. */
  createdBy?: UploadCreator;
  /** The visibility the last import ran within (`teams: null`: a System Admin's, everything). */
  importGrant?: VisibilityGrant;
  createdAt?: Date;
  updatedAt?: Date;
}

const RejectedRowSchema = new Schema({ file: String, line: Number, reason: String, id: String }, { _id: false });
const RuleCountSchema = new Schema(
  {
    rule: String,
    severity: String,
    count: Number,
    examples: [new Schema({ file: String, line: Number, id: String, message: String }, { _id: false })],
  },
  { _id: false },
);

export const UploadSchema = new Schema<Upload>(
  {
    refId: { type: String, required: true },
    format: { type: String, enum: UPLOAD_FORMATS, default: 'gpd' },
    providerName: String,
    fileName: { type: String, required: true },
    objectKey: { type: String, required: true },
    declaredBytes: Number,
    status: { type: String, enum: UPLOAD_STATUSES, required: true },
    jobId: String,
    sizeBytes: Number,
    rowsRead: { type: Number, default: 0 },
    rowsWritten: { type: Number, default: 0 },
    rowsRejected: { type: Number, default: 0 },
    errors: { type: [RejectedRowSchema], default: [] },
    conformance: { rules: { type: [RuleCountSchema], default: undefined } },
    parts: {
      type: [
        {
          _id: false,
          name: String,
          objectKey: String,
          format: String,
          sizeBytes: Number,
          declaredBytes: Number,
          focusVersion: String,
          versionSource: String,
          rowsRead: Number,
          rowsWritten: Number,
          rowsRejected: Number,
        },
      ],
      default: undefined,
    },
    declaredVersion: String,
    providers: { type: [String], default: undefined },
    scopes: {
      type: [{ _id: false, providerName: String, billingAccountId: String, billingPeriod: String, rows: Number }],
      default: undefined,
    },
    replaced: { type: [{ _id: false, uploadRefId: String, rowsRemoved: Number }], default: undefined },
    importRequestedAt: Date,
    replacing: Boolean,
    supersededBy: { type: [String], default: undefined },
    source: { providerCode: String, rawFile: String },
    connection: { type: Schema.Types.Mixed, default: undefined },
    createdBy: { type: new Schema<UploadCreator>({ userId: String, idpId: String }, { _id: false }), default: undefined },
    // `{ teams: null }` must stay null (not the empty list a typed array would make of it)
    importGrant: { type: Schema.Types.Mixed, default: undefined },
  },
  { collection: 'gpd_uploads', timestamps: true, versionKey: false, suppressReservedKeysWarning: true },
);
UploadSchema.plugin(tenantScopedPlugin);
UploadSchema.index({ refId: 1 }, { unique: true });
// Uploads are listed (pages in _id order) and found by provider case-insensitively (the queries
// carry this collation): a GPD file by its provider, a FOCUS import by the providers of its rows
// (one index per branch of the query's $or). Own names: indexes these replace may still exist in
// older databases.
UploadSchema.index(
  { tenantId: 1, providerName: 1, _id: 1 },
  { name: 'tenantId_1_providerName_1__id_1_ci', collation: { locale: 'en', strength: 2 } },
);
UploadSchema.index(
  { tenantId: 1, providers: 1, _id: 1 },
  { name: 'tenantId_1_providers_1__id_1_ci', collation: { locale: 'en', strength: 2 } },
);
// Housekeeping marks a tenant's loaded or failed uploads as cleaned.
UploadSchema.index({ tenantId: 1, status: 1 });
// The start-up migration of FOCUS statuses, across tenants (docs/focus.md).
UploadSchema.index({ status: 1, format: 1 });
