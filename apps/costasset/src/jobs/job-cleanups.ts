import { Injectable, Logger } from '@nestjs/common';
import { JobHandlers } from './job-handlers';
import { Job, JobsRepository } from './jobs.repository';

/**
 * Runs the clean-up of a job that ended failed or terminated (its handler's `onFailed` or
 * `onTerminated`: removing partial rows, failing the upload). The job is marked `cleanupPending`
 * when it ends and cleared here once the clean-up succeeded; a clean-up that fails (its database
 * unreachable again) is run again by the reaper, on any instance.
 */
@Injectable()
export class JobCleanups {
  private readonly logger = new Logger('Jobs');

  constructor(
    private readonly jobs: JobsRepository,
    private readonly handlers: JobHandlers,
  ) {}

  async run(job: Pick<Job, 'tenantId' | 'jobId' | 'type' | 'status' | 'payload' | 'error'>): Promise<boolean> {
    const handler = this.handlers.get(job.type);
    const ref = { tenantId: job.tenantId, jobId: job.jobId, payload: job.payload as never };
    try {
      if (job.status === 'failed') await handler?.onFailed?.(ref, job.error ?? 'failed');
      if (job.status === 'terminated') await handler?.onTerminated?.(ref);
      await this.jobs.cleanupDone(job.tenantId, job.jobId);
      return true;
    } catch (error) {
      this.logger.warn({ jobId: job.jobId, type: job.type, err: (error as Error).message }, 'job clean-up failed; it will be run again');
      return false;
    }
  }
}
