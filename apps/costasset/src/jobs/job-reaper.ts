import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CostassetEnvironment } from '../costasset.environment';
import { JobChildren } from './job-children';
import { JobCleanups } from './job-cleanups';
import { Job, JobsRepository } from './jobs.repository';

/** A clean-up that failed is tried again once it has waited this long. */
const CLEANUP_RETRY_MS = 15_000;

/**
 * Ends the jobs nobody runs any more, on every instance: a running job whose heartbeat is older
 * than JOBS_HEARTBEAT_DEADLINE_MS (its worker died, or lost the database for longer and gave up)
 * ends `failed` with that cause, and its clean-up removes what it had written. Clean-ups that
 * failed are run again. A job waiting long for its children is looked at again (JobChildren.check).
 * Two instances may look at the same job: only the one whose update still
 * finds it running ends it.
 */
@Injectable()
export class JobReaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('JobReaper');
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly cleanups: JobCleanups,
    private readonly children: JobChildren,
    private readonly env: CostassetEnvironment,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.env.JOBS_HEARTBEAT_DEADLINE_MS / 4);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const deadline = new Date(Date.now() - this.env.JOBS_HEARTBEAT_DEADLINE_MS);
      for (const job of await this.jobs.staleAcrossTenants(deadline)) await this.reap(job);
      for (const job of await this.jobs.waitingAcrossTenants(deadline)) await this.children.check(job);
      for (const job of await this.jobs.pendingCleanupsAcrossTenants(new Date(Date.now() - CLEANUP_RETRY_MS))) await this.cleanups.run(job);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'job sweep interrupted; the next one goes on');
    } finally {
      this.sweeping = false;
    }
  }

  private async reap(job: Job): Promise<void> {
    const since = job.heartbeatAt?.toISOString();
    const error =
      `its worker stopped reporting at ${since} (the instance stopped, or lost the database and gave up); ` + 'nothing it wrote is kept';
    const ended = await this.jobs.findOneAndUpdate(
      job.tenantId,
      { jobId: job.jobId, run: job.run, status: 'running', heartbeatAt: job.heartbeatAt },
      { $set: { status: 'failed', error, finishedAt: new Date(), cleanupPending: true } },
    );
    if (!ended) return;
    this.logger.warn(
      { jobId: job.jobId, type: job.type, tenantId: job.tenantId, lastHeartbeat: since },
      'job without a worker ended failed',
    );
    await this.cleanups.run(ended);
  }
}
