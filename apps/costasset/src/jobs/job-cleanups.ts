import { Injectable, Logger } from '@nestjs/common';
import { JobHandlers } from './job-handlers';
import { Job, JobsRepository } from './jobs.repository';

type EndedJob = Pick<Job, 'tenantId' | 'jobId' | 'type' | 'status' | 'payload' | 'error' | 'result' | 'parentJobId' | 'parentRun'>;

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

  async run(job: EndedJob): Promise<boolean> {
    const handler = this.handlers.get(job.type);
    const ref = { tenantId: job.tenantId, jobId: job.jobId, payload: job.payload as never };
    try {
      if (job.status === 'failed') await handler?.onFailed?.(ref, job.error ?? 'failed');
      if (job.status === 'terminated') await handler?.onTerminated?.(ref);
      if (job.parentJobId !== undefined) await this.endParent(job);
      await this.jobs.cleanupDone(job.tenantId, job.jobId);
      return true;
    } catch (error) {
      this.logger.warn({ jobId: job.jobId, type: job.type, err: (error as Error).message }, 'job clean-up failed; it will be run again');
      return false;
    }
  }

  /**
   * A child that failed or was terminated ends its parent's run the same way, with the child's
   * error and result, and the other children are asked to stop. Nothing if the parent ended already.
   */
  async endParent(child: EndedJob): Promise<void> {
    const { tenantId, parentJobId, parentRun } = child;
    if (parentJobId === undefined || (child.status !== 'failed' && child.status !== 'terminated')) return;
    const fields = { error: child.error ?? child.status, ...(child.result ? { result: child.result } : {}) };
    const parent = await this.jobs.end(tenantId, parentJobId, child.status, fields, true, parentRun);
    if (!parent) return;
    this.logger.warn(
      { jobId: parentJobId, type: parent.type, tenantId, child: child.jobId, reason: fields.error },
      `job ${child.status} with one of its parts`,
    );
    await this.jobs.stopChildren(parent);
    await this.run({ ...parent, status: child.status, ...fields });
  }
}
