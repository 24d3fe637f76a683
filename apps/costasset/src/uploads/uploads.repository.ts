import { Injectable } from '@nestjs/common';
import type { FilterQuery, QueryOptions } from 'mongoose';
import type { Paged } from '@lib/core';
import type { VisibilityGrant } from '../resource-groups/visibility.service';
import { UploadRecords } from './upload-records';
import {
  Conformance,
  IMPORT_ENDED_STATUSES,
  IMPORTING_STATUSES,
  ImportScope,
  LOADED_STATUSES,
  RejectedRow,
  Replacement,
  Upload,
  UploadFormat,
  UploadPart,
  UploadStatus,
} from './schemas/upload.schema';

type Lean = Upload & { _id: unknown };
type Identified = Pick<Upload, 'refId' | 'format'>;

/** What a new upload record holds; its status and counts are the repository's. */
export type NewUpload = Omit<Upload, 'tenantId' | 'status' | 'rowsRead' | 'rowsWritten' | 'rowsRejected' | 'errors'>;
export type StoredFile = Partial<Pick<Upload, 'providerName' | 'fileName' | 'objectKey' | 'sizeBytes' | 'source' | 'createdBy'>>;

export interface ImportRequest {
  jobId?: string;
  grant?: VisibilityGrant;
  /** FOCUS: the parts as checked in the store (their sizes). */
  parts?: UploadPart[];
  /** FOCUS: when the import was asked for (of two imports of one scope, the later wins). */
  requestedAt?: Date;
}

/** What a finished import leaves on its record. */
export type ImportedReport = Partial<
  Pick<
    Upload,
    | 'rowsRead'
    | 'rowsWritten'
    | 'rowsRejected'
    | 'errors'
    | 'conformance'
    | 'parts'
    | 'providers'
    | 'scopes'
    | 'replaced'
    | 'replacing'
    | 'supersededBy'
  >
>;

export interface FailureCounts {
  rowsRead?: number;
  rowsRejected?: number;
  rules?: Conformance['rules'];
  parts?: UploadPart[];
}

/** FOCUS uploads once had the GPD statuses: migrated once at start-up (docs/focus.md, Statuses). */
export const FOCUS_STATUS_RENAMES: [UploadStatus, UploadStatus][] = [
  ['enriching', 'importing'],
  ['enriched', 'imported'],
  ['enriched_with_errors', 'imported_with_errors'],
];

const importingStatus = (format: UploadFormat | undefined): UploadStatus => (format === 'focus' ? 'importing' : 'enriching');

function importedStatus(format: UploadFormat | undefined, withErrors: boolean): UploadStatus {
  if (format === 'focus') return withErrors ? 'imported_with_errors' : 'imported';
  return withErrors ? 'enriched_with_errors' : 'enriched';
}

/**
 * The one owner of upload records: reads, and every change of an upload's status as a named state
 * change, each conditional where a concurrent change must win (a clean-up during an import stays
 * `cleaned`). Every query leads with the tenant, on the collection's tenant-first indexes.
 */
@Injectable()
export class UploadsRepository {
  constructor(private readonly records: UploadRecords) {}

  find(tenantId: string, filter: FilterQuery<Upload> = {}, options: QueryOptions<Upload> = {}): Promise<Lean[]> {
    return this.records.find(tenantId, filter, options);
  }

  findOne(tenantId: string, filter: FilterQuery<Upload>, options: QueryOptions<Upload> = {}): Promise<Lean | null> {
    return this.records.findOne(tenantId, filter, options);
  }

  page(
    tenantId: string,
    filter: FilterQuery<Upload>,
    limit: number,
    cursor?: string,
    order: 'oldest' | 'newest' = 'oldest',
    options: Pick<QueryOptions<Upload>, 'collation'> = {},
  ): Promise<Paged<Lean>> {
    return this.records.page(tenantId, filter, limit, cursor, order, options);
  }

  /** A new upload: `awaiting_upload` its files, or `uploaded` when the service wrote them itself. */
  async register(tenantId: string, upload: NewUpload, status: 'awaiting_upload' | 'uploaded' = 'awaiting_upload'): Promise<void> {
    await this.records.create(tenantId, { ...upload, status, rowsRead: 0, rowsWritten: 0, rowsRejected: 0, errors: [] });
  }

  /** Its file is in the store: `uploaded`, unless an import already started (or ended). */
  async markUploaded(tenantId: string, refId: string, file: StoredFile): Promise<boolean> {
    const filter = { refId, status: { $in: ['awaiting_upload', 'uploaded'] } };
    return (await this.records.updateOne(tenantId, filter, { $set: { ...file, status: 'uploaded' } })) > 0;
  }

  /** An import job was submitted (or resubmitted) for the upload. */
  async markImporting(tenantId: string, upload: Identified, request: ImportRequest = {}): Promise<void> {
    const { jobId, grant, parts, requestedAt } = request;
    await this.records.updateOne(
      tenantId,
      { refId: upload.refId },
      {
        $set: {
          status: importingStatus(upload.format),
          ...(jobId ? { jobId } : {}),
          ...(grant ? { importGrant: grant } : {}),
          ...(parts ? { parts } : {}),
          ...(requestedAt ? { importRequestedAt: requestedAt } : {}),
        },
      },
    );
  }

  /** The visibility the next attempt runs within (set before a job is rerun, which may start at once). */
  async recordImportGrant(tenantId: string, refId: string, grant: VisibilityGrant): Promise<void> {
    await this.records.updateOne(tenantId, { refId }, { $set: { importGrant: grant } });
  }

  /** An attempt of the import starts from nothing; false when the upload was cleaned meanwhile. */
  async startAttempt(tenantId: string, upload: Identified): Promise<boolean> {
    const reset = { status: importingStatus(upload.format), rowsRead: 0, rowsWritten: 0, rowsRejected: 0, errors: [] };
    const update =
      upload.format === 'focus' ? { $set: { ...reset, replacing: false }, $unset: { scopes: 1, replaced: 1 } } : { $set: reset };
    return (await this.records.updateOne(tenantId, { refId: upload.refId, status: { $ne: 'cleaned' } }, update)) > 0;
  }

  /** The (provider, billing account, billing period) scopes a FOCUS import wrote rows in. */
  async recordScopes(tenantId: string, refId: string, scopes: ImportScope[]): Promise<void> {
    await this.records.updateOne(tenantId, { refId }, { $set: { scopes } });
  }

  /** A FOCUS import removes the rows it replaces (docs/focus.md, Replacement). */
  async markReplacing(tenantId: string, refId: string): Promise<void> {
    await this.records.updateOne(tenantId, { refId }, { $set: { replacing: true } });
  }

  /** The import ended with rows written; a clean-up during the run wins (the upload stays `cleaned`). */
  async markImported(tenantId: string, upload: Identified, withErrors: boolean, report: ImportedReport): Promise<boolean> {
    const filter = { refId: upload.refId, status: importingStatus(upload.format) };
    return (await this.records.updateOne(tenantId, filter, { $set: { status: importedStatus(upload.format, withErrors), ...report } })) > 0;
  }

  /** The import failed and keeps no row, but keeps its report; a clean-up during the run wins. */
  async markFailed(tenantId: string, refId: string, errors: RejectedRow[], counts: FailureCounts = {}): Promise<boolean> {
    const { rules, rowsRead, rowsRejected, parts } = counts;
    const failed = {
      status: 'failed',
      rowsWritten: 0,
      errors,
      ...(rowsRead !== undefined ? { rowsRead, rowsRejected } : {}),
      ...(rules ? { conformance: { rules } } : {}),
      ...(parts ? { parts } : {}),
    };
    return (await this.records.updateOne(tenantId, { refId, status: { $in: IMPORTING_STATUSES } }, { $set: failed })) > 0;
  }

  /**
   * A newer import (`by`) replaced rows of this loaded upload. It becomes `superseded` only once it
   * holds no cost row any more (`left.rows` 0); otherwise it stays loaded, with the scopes it still holds.
   */
  async supersede(tenantId: string, refId: string, by: string, left: { rows: number; scopes?: ImportScope[] }): Promise<boolean> {
    const change = { ...(left.scopes ? { scopes: left.scopes } : {}), ...(left.rows === 0 ? { status: 'superseded' } : {}) };
    const filter = { refId, status: { $in: LOADED_STATUSES } };
    return (await this.records.updateOne(tenantId, filter, { $set: change, $addToSet: { supersededBy: by } })) > 0;
  }

  /** The rows of older uploads this one replaced. */
  async recordReplaced(tenantId: string, refId: string, replaced: Replacement[]): Promise<void> {
    await this.records.updateOne(tenantId, { refId }, { $set: { replaced } });
  }

  /** Its files and rows were removed; the record stays. */
  async markCleaned(tenantId: string, refId: string): Promise<void> {
    await this.records.updateOne(tenantId, { refId }, { $set: { status: 'cleaned' }, $unset: { scopes: 1 } });
  }

  /** Housekeeping removed all the tenant's rows: every upload an import ended on is `cleaned` (the count). */
  markAllCleaned(tenantId: string): Promise<number> {
    return this.records.updateMany(tenantId, { status: { $in: IMPORT_ENDED_STATUSES } }, { $set: { status: 'cleaned' } });
  }

  /** FOCUS uploads stored with the GPD statuses get the FOCUS ones, in every tenant: the count per old status. */
  async migrateFocusStatuses(): Promise<Partial<Record<UploadStatus, number>>> {
    const counts: Partial<Record<UploadStatus, number>> = {};
    for (const [from, to] of FOCUS_STATUS_RENAMES) counts[from] = await this.records.renameStatusAcrossTenants('focus', from, to);
    return counts;
  }
}
