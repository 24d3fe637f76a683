import { JOB_TYPES } from '../../jobs/job-types';
import type { Principal } from '@lib/auth';
import { requesterOf } from '../../uploads/import-requester';
import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { Problems } from '@lib/core';
import { CostassetEnvironment } from '../../costasset.environment';
import { JobsService } from '../../jobs/jobs.service';
import { FlowStarted } from '../../extensions/dto/extension-files.dto';
import { extensionNotFound, ExtensionRepoService } from '../../extensions/extension-repo.service';
import { storeUnavailable } from '../../extensions/store/presign';
import { FlowPayload } from './extension-flow.constants';
import { matchingRawFiles } from './raw-inputs';

/** Starts a flow once what it needs is there: a valid extension and matching expanded raw files. */
@Injectable()
export class ExtensionFlowService {
  constructor(
    private readonly extensions: ExtensionRepoService,
    private readonly jobs: JobsService,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
  ) {}

  /** `caller`: the user who asks (it follows the job, sees the GPD upload, and the enrichment runs within its visibility). */
  async start(
    tenantId: string,
    providerCode: string,
    options: { importAfter?: boolean; rawFile?: string } = {},
    caller?: Principal,
  ): Promise<FlowStarted> {
    const extensionKey = await this.extensions.latestKey(tenantId, providerCode);
    if (!extensionKey) throw extensionNotFound(`No extension uploaded for provider ${providerCode}`);
    const checked = await this.extensions.check(tenantId, providerCode, extensionKey);
    if (!checked.manifest) {
      const errors = checked.errors.map((error) => ({ field: error.path ?? 'archive', messages: [error.message] }));
      throw Problems.badRequest('EXTENSION_INVALID', `The latest extension of ${providerCode} is invalid; validate it for details`, errors);
    }
    const inputs = await matchingRawFiles(this.store, this.env.S3_BUCKET, tenantId, checked.manifest, options.rawFile).catch(() => {
      throw storeUnavailable();
    });
    if (!inputs || inputs.files.length === 0)
      throw Problems.notFound(
        'RAW_DATA_NOT_FOUND',
        `No expanded raw file of ${providerCode}${inputs ? ` in ${inputs.rawFile}` : ''} matches ${checked.manifest.input.filePattern}`,
      );
    const payload: FlowPayload = {
      providerCode,
      extensionKey,
      rawFile: inputs.rawFile,
      ...(options.importAfter ? { enrichAfter: true } : {}),
      ...(caller ? { requester: requesterOf(caller) } : {}),
    };
    const job = await this.jobs.submit(tenantId, JOB_TYPES.extensionFlow, { ...payload }, caller);
    return {
      status: 'started',
      message: `Transforming ${inputs.files.length} raw file(s) of ${providerCode} from ${inputs.rawFile} into a GPD file`,
      jobId: job.jobId,
    };
  }
}
