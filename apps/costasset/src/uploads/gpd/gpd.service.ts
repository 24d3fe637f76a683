import { JOB_TYPES } from '../../jobs/job-types';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { Problems } from '@lib/core';
import { CostassetEnvironment } from '../../costasset.environment';
import { gpdFileLimits, sizeRefusal, UploadUrls } from '../../object-store/upload-urls';
import { JobsService } from '../../jobs/jobs.service';
import { CleanupDone, EnrichRequest, EnrichStarted, UploadRecordDto, UploadSubmitted } from './dto/gpd.dto';
import type { Paged } from '@lib/core';
import { toUploadRecord } from '../gpd-upload.presenter';
import { focusPartKey, formatOfName, gpdObjectKey } from '../upload-keys';
import { UploadCleanup } from '../upload-cleanup';
import { UploadsRepository } from '../uploads.repository';
import { IMPORT_ENDED_STATUSES, IMPORTING_STATUSES, Upload } from '../schemas/upload.schema';
import { UploadAccess } from '../upload-access';
import type { Principal } from '@lib/auth';
import { grantOf } from '../../resource-groups/visibility.service';
import { ImportRequester, requesterOf, SERVICE_IMPORT } from '../import-requester';

const DEFAULT_FILE_NAME = 'upload.zip';
/** Provider names match case-insensitively, as the uploads' index is collated. */
const CASE_INSENSITIVE = { locale: 'en', strength: 2 };
const sameProvider = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** GPD upload records and their life cycle: awaiting_upload → uploaded → enriching → enriched | failed, and cleaned (UploadsRepository). */
@Injectable()
export class GpdService {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly jobs: JobsService,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly access: UploadAccess,
    private readonly urls: UploadUrls,
    private readonly cleanups: UploadCleanup,
  ) {}

  /**
   * A GPD zip, or one FOCUS file (`.csv`, `.csv.gz`, `.parquet`): the latter becomes a FOCUS upload of
   * one part, imported by `POST /v1/gpd/enrich` like a GPD file is enriched (its rows keep their own
   * ProviderName; `providername` labels the upload). A declared size binds the upload URL to that
   * length, and the import refuses a stored object of another size.
   */
  async submit(principal: Principal, providerName: string, fileName = DEFAULT_FILE_NAME, declaredBytes?: number): Promise<UploadSubmitted> {
    const { tenantId } = principal;
    if (declaredBytes !== undefined && declaredBytes > this.env.GPD_MAX_FILE_BYTES)
      throw Problems.payloadTooLarge(
        'GPD_FILE_TOO_LARGE',
        `The declared size ${declaredBytes} is over GPD_MAX_FILE_BYTES (${this.env.GPD_MAX_FILE_BYTES})`,
      );
    const refId = randomUUID();
    const focusFormat = formatOfName(fileName);
    const objectKey = focusFormat ? focusPartKey(tenantId, refId, 0, fileName) : gpdObjectKey(tenantId, refId, fileName);
    const { url: uploadUrl, expiresAt } = this.urls.put(objectKey, declaredBytes);
    const declared = declaredBytes !== undefined ? { declaredBytes } : {};
    await this.uploads.register(tenantId, {
      refId,
      format: focusFormat ? 'focus' : 'gpd',
      providerName,
      fileName,
      objectKey,
      ...declared,
      ...(focusFormat
        ? { parts: [{ name: fileName, objectKey, format: focusFormat, ...declared, rowsRead: 0, rowsWritten: 0, rowsRejected: 0 }] }
        : {}),
      createdBy: UploadAccess.creatorOf(principal),
    });
    return { GPDUploadRefId: refId, uploadUrl, expiresAt };
  }

  /**
   * A page of the provider's uploads the caller may see, newest first: GPD files of it, and FOCUS
   * imports labelled with it or holding its rows. Uploads the caller may not see are left out of
   * the page, so a page can hold fewer than `limit` (follow `nextCursor`).
   */
  async list(principal: Principal, providerName: string, limit: number, cursor?: string): Promise<Paged<UploadRecordDto>> {
    const filter = { $or: [{ providerName }, { providers: providerName }] };
    const page = await this.uploads.page(principal.tenantId, filter, limit, cursor, 'newest', { collation: CASE_INSENSITIVE });
    return { items: (await this.access.visible(principal, page.items)).map(toUploadRecord), nextCursor: page.nextCursor };
  }

  /**
   * Starts one import job per upload the caller may see, within the requester's visibility: the
   * caller's, or for the service's own work (an extension flow's enrichment) the one it was asked for.
   */
  async import(
    tenantId: string,
    request: EnrichRequest,
    caller?: Principal,
    requester: ImportRequester = caller ? requesterOf(caller) : SERVICE_IMPORT,
  ): Promise<EnrichStarted> {
    const refIds = [...new Set(request.GPDUploadRefId)];
    const stored = await this.uploads.find(tenantId, { refId: { $in: refIds } });
    const found = caller ? await this.access.visible(caller, stored) : stored;
    const byRef = new Map(found.map((upload) => [upload.refId, upload]));
    const missing = refIds.filter((refId) => !byRef.has(refId) || byRef.get(refId)?.status === 'cleaned');
    if (missing.length > 0) throw Problems.notFound('GPD_UPLOAD_NOT_FOUND', `No such GPD upload: ${missing.join(', ')}`);
    for (const upload of found) this.checkImportable(upload, request);
    for (const upload of found) await this.checkObject(tenantId, upload);

    const jobs = [];
    for (const refId of refIds) {
      const upload = byRef.get(refId) as Upload;
      if (IMPORTING_STATUSES.includes(upload.status) && upload.jobId) {
        jobs.push({ GPDUploadRefId: refId, jobId: upload.jobId });
        continue;
      }
      const focus = upload.format === 'focus';
      const job = await this.jobs.submit(tenantId, focus ? JOB_TYPES.focusImport : JOB_TYPES.gpdImport, { refId }, requester.submitter);
      await this.uploads.markImporting(tenantId, upload, {
        jobId: job.jobId,
        grant: requester.grant,
        ...(focus ? { requestedAt: new Date() } : {}),
      });
      jobs.push({ GPDUploadRefId: refId, jobId: job.jobId });
    }
    return { status: 'started', jobs };
  }

  private checkImportable(upload: Upload, request: EnrichRequest): void {
    if (request.provider.length > 0 && !request.provider.some((name) => sameProvider(name, upload.providerName ?? ''))) {
      throw Problems.badRequest('GPD_PROVIDER_MISMATCH', `Upload ${upload.refId} belongs to provider ${upload.providerName}`);
    }
    if (IMPORT_ENDED_STATUSES.includes(upload.status) && request.retry !== 'true') {
      throw Problems.conflict('GPD_ALREADY_ENRICHED', `Upload ${upload.refId} is ${upload.status}; send retry "true" to enrich it again`);
    }
  }

  /** The object must be in the store, within the size limit and of the declared size before a job is started. */
  private async checkObject(tenantId: string, upload: Upload): Promise<void> {
    const stat = await this.store.statObject(this.env.S3_BUCKET, upload.objectKey).catch((error: { code?: string }) => {
      if (error.code === 'NotFound' || error.code === 'NoSuchKey') return null;
      throw Problems.unavailable('OBJECT_STORE_UNAVAILABLE', 'The object store cannot be reached');
    });
    if (!stat)
      throw Problems.badRequest('GPD_FILE_NOT_READY', `The file of upload ${upload.refId} is not uploaded yet; wait and try again`);
    if (stat.size > this.env.GPD_MAX_FILE_BYTES) {
      throw Problems.payloadTooLarge(
        'GPD_FILE_TOO_LARGE',
        `The file of upload ${upload.refId} is ${stat.size} bytes; the limit is ${this.env.GPD_MAX_FILE_BYTES}`,
      );
    }
    const refusal = sizeRefusal(stat.size, gpdFileLimits(upload, this.env));
    if (refusal) throw Problems.badRequest('GPD_FILE_SIZE_MISMATCH', `The file of upload ${upload.refId} ${refusal}`);
    if (upload.status === 'awaiting_upload') await this.uploads.markUploaded(tenantId, upload.refId, { sizeBytes: stat.size });
  }

  /** Runs the job again within the visibility of the caller asking for it (a System Admin's: everything). */
  async retry(tenantId: string, jobId: string, caller: Principal): Promise<{ status: 'accepted'; jobId: string }> {
    const current = await this.jobs.get(tenantId, jobId);
    const imported = current?.type === JOB_TYPES.gpdImport || current?.type === JOB_TYPES.focusImport;
    const refId = imported ? String(current.payload.refId) : undefined;
    const upload = refId ? await this.uploads.findOne(tenantId, { refId }) : null;
    if (!upload || upload.status === 'cleaned' || upload.jobId !== jobId || !(await this.access.maySee(caller, upload))) throw invalidJob();
    await this.uploads.recordImportGrant(tenantId, upload.refId, grantOf(caller));
    const job = await this.jobs.rerun(tenantId, jobId);
    if (!job) throw invalidJob();
    await this.uploads.markImporting(tenantId, upload);
    return { status: 'accepted', jobId };
  }

  async cleanup(principal: Principal, providerName: string, refId: string): Promise<CleanupDone> {
    const { tenantId } = principal;
    const upload = await this.uploads.findOne(
      tenantId,
      { refId, $or: [{ providerName }, { providers: providerName }] },
      { collation: CASE_INSENSITIVE },
    );
    if (!upload || !(await this.access.maySee(principal, upload)))
      throw Problems.notFound('GPD_UPLOAD_NOT_FOUND', 'No such GPD upload of this provider');
    const keys = upload.parts?.length ? upload.parts.map((part) => part.objectKey) : [upload.objectKey];
    const removed = await this.cleanups.clean(tenantId, upload, keys);
    const { costLineItems: costLineItemsRemoved, assets: assetsRemoved, utilization: utilizationRemoved } = removed;
    return { status: 'cleaned', GPDUploadRefId: refId, costLineItemsRemoved, assetsRemoved, utilizationRemoved };
  }
}

const invalidJob = () =>
  Problems.badRequest('INVALID_JOB_ID', 'The job id is not a failed or terminated GPD enrichment job of this tenant');
