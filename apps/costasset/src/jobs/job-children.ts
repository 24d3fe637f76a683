import { Injectable, Logger } from '@nestjs/common';
import { AwaitChildren, ChildOutcome } from './job-handler';
import { JobCleanups } from './job-cleanups';
import { JobQueue } from './job-queue';
import type { JobType } from './job-types';
import { Job, JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

const SUCCEEDED = ['succeeded', 'completed_with_errors'];

/**
 * Jobs spread over child jobs (`AwaitChildren`): the parent's run records its children and waits
 * without holding a worker; each child is an ordinary job on the work queue (its own attempts,
 * heartbeats and clean-up), keyed by the parent's id, run and its index so that a redelivery
 * spawns nothing twice. The last child to succeed queues the parent's resumption (stored once);
 * the run that claims it reads the children's outcomes. A child that fails ends the parent
 * (JobCleanups.endParent). The reaper looks again at parents waiting long (`check`), in case the
 * instance that ended their last child could not tell them.
 */
@Injectable()
export class JobChildren {
  private readonly logger = new Logger('Jobs');

  constructor(
    private readonly jobs: JobsRepository,
    private readonly queue: JobQueue,
    private readonly service: JobsService,
    private readonly cleanups: JobCleanups,
  ) {}

  /** Records that the parent's run waits for these children, then queues each of them. */
  async await(parent: Job, children: AwaitChildren): Promise<void> {
    const recorded = { type: children.type, payloads: children.payloads };
    await this.jobs.updateOne(
      parent.tenantId,
      { jobId: parent.jobId, run: parent.run, status: 'running' },
      { $set: { children: recorded, waiting: true, heartbeatAt: new Date() } },
    );
    await this.spawn({ ...parent, children: recorded });
  }

  /** Queues every child of the parent's run that is not queued yet (all of them, the first time). */
  async spawn(parent: Job): Promise<void> {
    if (!parent.children) return;
    const { type, payloads } = parent.children;
    for (const [index, payload] of payloads.entries()) {
      await this.service.submitOnce(parent.tenantId, type as JobType, payload, `child:${parent.jobId}:${parent.run}:${index}`, {
        parentJobId: parent.jobId,
        parentRun: parent.run,
        childIndex: index,
        ...(parent.submittedBy ? { submittedBy: parent.submittedBy } : {}),
      });
    }
  }

  /**
   * The children's outcomes when every one succeeded and this call took the parent out of
   * waiting (only one call does); undefined otherwise.
   */
  async claim(parent: Job): Promise<ChildOutcome[] | undefined> {
    if (!(await this.allSucceeded(parent))) return undefined;
    const claimed = await this.jobs.findOneAndUpdate(
      parent.tenantId,
      { jobId: parent.jobId, run: parent.run, status: 'running', waiting: true },
      { $set: { waiting: false, heartbeatAt: new Date() } },
    );
    return claimed ? this.outcomes(parent) : undefined;
  }

  /** What each child answered, in order (a resumed run redelivered after a crash reads them again). */
  async outcomes(parent: Job): Promise<ChildOutcome[]> {
    const children = await this.jobs.childrenOf(parent, { result: 1, handoff: 1 });
    return children.map((child) => ({ result: child.result ?? {}, handoff: child.handoff ?? {} }));
  }

  /** After a child succeeded: the last one queues its parent's resumption. */
  async succeeded(child: Job): Promise<void> {
    if (child.parentJobId === undefined) return;
    const parent = await this.jobs.findOne(child.tenantId, { jobId: child.parentJobId, run: child.parentRun, waiting: true });
    if (parent && (await this.allSucceeded(parent))) await this.resume(parent);
  }

  /**
   * A parent waiting long: its children are spawned again (a crash while spawning), a child that
   * failed without ending it ends it, and one whose children all succeeded is resumed.
   */
  async check(parent: Job): Promise<void> {
    await this.jobs.updateOne(
      parent.tenantId,
      { jobId: parent.jobId, run: parent.run, waiting: true },
      { $set: { heartbeatAt: new Date() } },
    );
    await this.spawn(parent);
    const children = await this.jobs.childrenOf(parent, { jobId: 1, status: 1, error: 1, result: 1, type: 1, payload: 1 });
    const ended = children.find((child) => child.status === 'failed' || child.status === 'terminated');
    if (ended) await this.cleanups.endParent({ ...ended, tenantId: parent.tenantId, parentJobId: parent.jobId, parentRun: parent.run });
    else if (await this.allSucceeded(parent)) await this.resume(parent);
  }

  private async allSucceeded(parent: Job): Promise<boolean> {
    const count = parent.children?.payloads.length ?? 0;
    const done = await this.jobs.count(parent.tenantId, { parentJobId: parent.jobId, parentRun: parent.run, status: { $in: SUCCEEDED } });
    return done === count;
  }

  private async resume(parent: Job): Promise<void> {
    this.logger.log({ jobId: parent.jobId, type: parent.type, tenantId: parent.tenantId }, 'job resumed: its parts are done');
    await this.queue.enqueueResume({ tenantId: parent.tenantId, jobId: parent.jobId, run: parent.run });
  }
}
