import { JOB_TYPES } from '../../jobs/job-types';
import type { Principal } from '@lib/auth';
import { Injectable } from '@nestjs/common';
import { ProblemException, Problems } from '@lib/core';
import { FlowStarted } from '../../extensions/dto/extension-files.dto';
import { ExtensionFlowService } from '../../imports/extension-flow/extension-flow.service';
import { UploadsRepository } from '../uploads.repository';
import { GpdService } from '../gpd/gpd.service';
import { JobsService } from '../../jobs/jobs.service';
import { IngestedUpload, IngestionStarted, SkippedUpload, TerminatedJobs } from './dto/ingestion.dto';

const PENDING = ['awaiting_upload', 'uploaded', 'failed'];
const INGESTION_JOB_TYPES: string[] = [JOB_TYPES.gpdImport, JOB_TYPES.extensionFlow];

/**
 * The ingestion controller (docs/interface.md#gpd-files-and-enrichment) on top of the job service. Every step is a job of its own and
 * nothing blocks waiting for another job: the consolidated ingestion (v2) is a transformation
 * job that submits the enrichment of its output when it succeeds.
 */
@Injectable()
export class IngestionService {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly gpd: GpdService,
    private readonly jobs: JobsService,
    private readonly flows: ExtensionFlowService,
  ) {}

  /** Enriches every upload of the tenant that is not enriched yet (failed ones again), one job each. */
  async ingest(caller: Principal, providers?: string[]): Promise<IngestionStarted> {
    const { tenantId } = caller;
    const wanted = providers?.map((p) => p.toLowerCase());
    const pending = (await this.uploads.find(tenantId, { status: { $in: PENDING } }, { sort: { _id: 1 }, limit: 1000 })).filter(
      (upload) => !wanted || wanted.includes((upload.providerName ?? '').toLowerCase()),
    );
    const jobs: IngestedUpload[] = [];
    const skipped: SkippedUpload[] = [];
    for (const upload of pending) {
      try {
        const started = await this.gpd.import(tenantId, { GPDUploadRefId: [upload.refId], provider: [], retry: 'true' }, caller);
        jobs.push(...started.jobs);
      } catch (error) {
        if (!(error instanceof ProblemException) || error.getStatus() >= 500) throw error;
        skipped.push({ GPDUploadRefId: upload.refId, code: error.code, reason: error.message });
      }
    }
    return { status: jobs.length > 0 ? 'started' : 'nothing-to-do', jobs, skipped };
  }

  /** Runs failed enrichment again: the one given, or every failed upload of the tenant. */
  async retry(caller: Principal, jobId?: string): Promise<{ status: 'accepted'; jobs: string[] }> {
    const { tenantId } = caller;
    if (jobId) return { status: 'accepted', jobs: [(await this.gpd.retry(tenantId, jobId, caller)).jobId] };
    const failed = await this.uploads.find(tenantId, { status: 'failed', jobId: { $exists: true } }, { limit: 1000 });
    const jobs: string[] = [];
    for (const upload of failed) jobs.push((await this.gpd.retry(tenantId, upload.jobId as string, caller)).jobId);
    return { status: 'accepted', jobs };
  }

  /** Terminates the given ingestion job, or every queued or running one of the tenant. */
  async terminate(tenantId: string, jobId?: string): Promise<TerminatedJobs> {
    if (jobId) {
      const job = await this.jobs.get(tenantId, jobId);
      if (!job || !INGESTION_JOB_TYPES.includes(job.type)) throw Problems.notFound('JOB_NOT_FOUND', `No ingestion job ${jobId}`);
      if (!(await this.jobs.terminate(tenantId, jobId))) throw Problems.badRequest('JOB_NOT_RUNNING', `Job ${jobId} is ${job.status}`);
      return { terminated: [jobId] };
    }
    const terminated: string[] = [];
    for (const job of await this.jobs.active(tenantId, INGESTION_JOB_TYPES)) {
      if (await this.jobs.terminate(tenantId, job.jobId)) terminated.push(job.jobId);
    }
    return { terminated };
  }

  /** v2: raw data → GPD (transformation job) → enrichment, started by one request. */
  consolidated(caller: Principal, providerCode: string, rawFile?: string): Promise<FlowStarted> {
    return this.flows.start(caller.tenantId, providerCode, { importAfter: true, rawFile }, caller);
  }
}
