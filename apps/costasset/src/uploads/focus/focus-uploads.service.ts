import { JOB_TYPES } from '../../jobs/job-types';
import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Client } from 'minio';
import { DEFAULT_PAGE_SIZE } from '@lib/http';
import { Problems } from '@lib/core';
import { CostassetEnvironment } from '../../costasset.environment';
import { focusPartRefusal, UploadUrls } from '../../object-store/upload-urls';
import { UploadRecordDto } from '../gpd/dto/gpd.dto';
import { toUploadRecord } from '../gpd-upload.presenter';
import { focusPartKey, formatOfName, gpdObjectKey } from '../upload-keys';
import { UploadCleanup } from '../upload-cleanup';
import { UploadsRepository } from '../uploads.repository';
import {
  IMPORT_ENDED_STATUSES,
  IMPORTING_STATUSES,
  Upload,
  UploadConnectionSource,
  UploadCreator,
  UploadPart,
} from '../schemas/upload.schema';
import { totalOf } from '../../imports/write/upload-rows';
import { UploadAccess } from '../upload-access';
import { EVERYTHING, grantOf } from '../../resource-groups/visibility.service';
import type { Principal } from '@lib/auth';
import { JobsService, keyedJobId } from '../../jobs/jobs.service';
import { CreateFocusUploadRequest, FocusImportStarted, FocusUploadCreated } from './dto/focus-upload.dto';

const storeUnavailable = () => Problems.unavailable('OBJECT_STORE_UNAVAILABLE', 'The object store cannot be reached');
const uploadNotFound = (id: string) => Problems.notFound('FOCUS_UPLOAD_NOT_FOUND', `No FOCUS upload ${id}`);

/**
 * FOCUS uploads: a record in the GPD upload collection (`format: focus`) naming every file of the
 * export, one pre-signed PUT URL per file, and an explicit import call that checks every named
 * file arrived before it starts one `focus.import` job for all of them.
 */
@Injectable()
export class FocusUploadsService {
  private readonly logger = new Logger('FocusUploads');

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly jobs: JobsService,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly access: UploadAccess,
    private readonly urls: UploadUrls,
    private readonly cleanups: UploadCleanup,
  ) {}

  async create(principal: Principal, request: CreateFocusUploadRequest): Promise<FocusUploadCreated> {
    const { tenantId } = principal;
    const names = request.files.map((file) => file.name);
    if (names.length > this.env.FOCUS_MAX_PARTS)
      throw Problems.badRequest('FOCUS_TOO_MANY_FILES', `An upload holds at most ${this.env.FOCUS_MAX_PARTS} files (FOCUS_MAX_PARTS)`);
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined)
      throw Problems.badRequest('FOCUS_FILE_NAME_REPEATED', `The file name ${JSON.stringify(duplicate)} is given twice`);
    const unknown = names.filter((name) => !formatOfName(name));
    if (unknown.length > 0)
      throw Problems.badRequest(
        'FOCUS_FILE_FORMAT_UNKNOWN',
        'Each file must end in .csv, .csv.gz (or .gz) or .parquet',
        unknown.slice(0, 20).map((name) => ({ field: 'files.name', messages: [`${name}: unknown format`] })),
      );
    const overLimit = request.files.filter((file) => (file.sizeBytes ?? 0) > this.env.FOCUS_MAX_FILE_BYTES);
    if (overLimit.length > 0) {
      const named = overLimit.slice(0, 10).map((file) => `${file.name} (${file.sizeBytes} bytes)`);
      throw Problems.payloadTooLarge(
        'FOCUS_FILE_TOO_LARGE',
        `Declared over FOCUS_MAX_FILE_BYTES (${this.env.FOCUS_MAX_FILE_BYTES}): ${named.join(', ')}`,
      );
    }
    const refId = randomUUID();
    const parts = names.map((name, index) => ({
      name,
      objectKey: focusPartKey(tenantId, refId, index, name),
      format: formatOfName(name) as UploadPart['format'],
      ...(request.files[index].sizeBytes !== undefined ? { declaredBytes: request.files[index].sizeBytes } : {}),
      rowsRead: 0,
      rowsWritten: 0,
      rowsRejected: 0,
    }));
    return this.register(principal, refId, parts, { label: request.label, focusVersion: request.focusVersion });
  }

  /** Creates the record and one pre-signed PUT URL per part (also used by POST /v1/gpd for a single FOCUS file). */
  async register(
    principal: Principal,
    refId: string,
    parts: UploadPart[],
    options: { label?: string; focusVersion?: string; providerName?: string },
  ): Promise<FocusUploadCreated> {
    const { tenantId } = principal;
    const urls = parts.map((part) => ({ name: part.name, ...this.urls.put(part.objectKey, part.declaredBytes) }));
    const files = urls.map(({ name, url }) => ({ name, uploadUrl: url }));
    await this.uploads.register(tenantId, {
      refId,
      format: 'focus',
      ...((options.providerName ?? options.label) ? { providerName: options.providerName ?? options.label } : {}),
      fileName: options.label ?? parts[0].name,
      objectKey: gpdObjectKey(tenantId, refId, ''),
      createdBy: UploadAccess.creatorOf(principal),
      parts,
      ...(options.focusVersion ? { declaredVersion: options.focusVersion } : {}),
    });
    return {
      uploadId: refId,
      files,
      expiresAt: urls[0].expiresAt,
      importPath: `/api/costasset/v1/focus/uploads/${refId}/import`,
    };
  }

  /**
   * Registers an upload of files a data connection's sync has put in the store, and starts its
   * import within everything (connections are a System Admin's). Once per `refId` and sync run: a
   * resumed run calling again finds the upload and its job (the job id derives from both); a later
   * run imports again an upload whose import failed (the cause may have been mended since).
   */
  async importFromConnection(
    tenantId: string,
    refId: string,
    parts: UploadPart[],
    options: { label: string; connection: UploadConnectionSource; createdBy: UploadCreator },
  ): Promise<FocusImportStarted> {
    const key = `connection-import:${tenantId}:${refId}:${options.connection.runId}`;
    const existing = await this.uploads.findOne(tenantId, { refId, format: 'focus' });
    const failedEarlier = existing?.status === 'failed' && existing.jobId !== keyedJobId(key);
    if (existing?.jobId && !failedEarlier) return { uploadId: refId, jobId: existing.jobId };
    if (!existing)
      await this.uploads.register(
        tenantId,
        {
          refId,
          format: 'focus',
          fileName: options.label,
          objectKey: gpdObjectKey(tenantId, refId, ''),
          createdBy: options.createdBy,
          parts,
          connection: options.connection,
        },
        'uploaded',
      );
    await this.jobs.submitOnce(tenantId, JOB_TYPES.focusImport, { refId }, key);
    const jobId = keyedJobId(key);
    await this.uploads.markImporting(tenantId, { refId, format: 'focus' }, { jobId, parts, requestedAt: new Date(), grant: EVERYTHING });
    return { uploadId: refId, jobId };
  }

  /** The status and first errors of FOCUS uploads by id (a connection's sync asks what became of its earlier imports). */
  async states(tenantId: string, refIds: string[]): Promise<Map<string, Pick<Upload, 'status' | 'errors'>>> {
    if (refIds.length === 0) return new Map();
    const found = await this.uploads.find(tenantId, { refId: { $in: refIds }, format: 'focus' });
    return new Map(found.map((upload) => [upload.refId, { status: upload.status, errors: upload.errors.slice(0, 1) }]));
  }

  /** The uploads the caller may see; a page can hold fewer than `limit` of them (follow `nextCursor`). */
  async list(
    principal: Principal,
    limit = DEFAULT_PAGE_SIZE,
    cursor?: string,
  ): Promise<{ items: UploadRecordDto[]; nextCursor: string | null }> {
    const page = await this.uploads.page(principal.tenantId, { format: 'focus' }, limit, cursor, 'newest');
    return { items: (await this.access.visible(principal, page.items)).map(toUploadRecord), nextCursor: page.nextCursor };
  }

  async get(principal: Principal, refId: string): Promise<UploadRecordDto> {
    return toUploadRecord(await this.find(principal, refId, true));
  }

  /** Checks that every named file is in the store (and within the size limit), then starts the import job. */
  async import(principal: Principal, refId: string, again = false): Promise<FocusImportStarted> {
    const { tenantId } = principal;
    const upload = await this.find(principal, refId);
    if (IMPORTING_STATUSES.includes(upload.status) && upload.jobId) return { uploadId: refId, jobId: upload.jobId };
    if (IMPORT_ENDED_STATUSES.includes(upload.status) && !again)
      throw Problems.conflict('FOCUS_ALREADY_IMPORTED', `Upload ${refId} is ${upload.status}; send {"again": true} to import it again`);
    const parts = await this.checkParts(upload);
    const job = await this.jobs.submit(tenantId, JOB_TYPES.focusImport, { refId }, principal);
    await this.uploads.markImporting(tenantId, upload, { jobId: job.jobId, parts, requestedAt: new Date(), grant: grantOf(principal) });
    return { uploadId: refId, jobId: job.jobId };
  }

  private async checkParts(upload: Upload): Promise<UploadPart[]> {
    const parts = upload.parts ?? [];
    const missing: string[] = [];
    const tooLarge: string[] = [];
    const mismatched: string[] = [];
    let total = 0;
    for (const part of parts) {
      const stat = await this.store.statObject(this.env.S3_BUCKET, part.objectKey).catch((error: { code?: string }) => {
        if (error.code === 'NotFound' || error.code === 'NoSuchKey') return null;
        throw storeUnavailable();
      });
      if (!stat) missing.push(part.name);
      else if (stat.size > this.env.FOCUS_MAX_FILE_BYTES) tooLarge.push(`${part.name} (${stat.size} bytes)`);
      else if (stat.size !== (part.declaredBytes ?? stat.size))
        mismatched.push(`${part.name} ${focusPartRefusal(stat.size, part, this.env)}`);
      else {
        part.sizeBytes = stat.size;
        total += stat.size;
      }
    }
    if (missing.length > 0)
      throw Problems.badRequest(
        'FOCUS_FILES_NOT_READY',
        `${missing.length} of ${parts.length} file(s) are not uploaded yet; PUT them and try again`,
        missing.slice(0, 100).map((name) => ({ field: 'files', messages: [`${name} is not uploaded`] })),
      );
    if (mismatched.length > 0) throw Problems.badRequest('FOCUS_FILE_SIZE_MISMATCH', mismatched.slice(0, 10).join('; '));
    if (tooLarge.length > 0)
      throw Problems.payloadTooLarge(
        'FOCUS_FILE_TOO_LARGE',
        `Over FOCUS_MAX_FILE_BYTES (${this.env.FOCUS_MAX_FILE_BYTES}): ${tooLarge.slice(0, 10).join(', ')}`,
      );
    this.logger.log({ refId: upload.refId, files: parts.length, bytes: total }, 'FOCUS import requested');
    return parts;
  }

  /** Removes the files and every row of the upload; the record stays, `cleaned`. */
  async cleanup(principal: Principal, refId: string): Promise<{ status: 'cleaned'; uploadId: string; costLineItemsRemoved: number }> {
    const { tenantId } = principal;
    const upload = await this.find(principal, refId);
    const keys = (upload.parts ?? []).map((part) => part.objectKey);
    const costLineItemsRemoved = totalOf(await this.cleanups.clean(tenantId, upload, keys));
    return { status: 'cleaned', uploadId: refId, costLineItemsRemoved };
  }

  /** The upload, when the caller may see it (else it is not found, as in another tenant). */
  private async find(principal: Principal, refId: string, includeCleaned = false): Promise<Upload> {
    const upload = await this.uploads.findOne(principal.tenantId, { refId, format: 'focus' });
    if (!upload || (upload.status === 'cleaned' && !includeCleaned) || !(await this.access.maySee(principal, upload)))
      throw uploadNotFound(refId);
    return upload;
  }
}
