import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DeadLetter, DeliveryContext } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { inSpan, setSpanAttributes } from '@lib/tracing';
import { CostassetEnvironment } from '../costasset.environment';
import { describeFault } from './faults';
import { JobCleanups } from './job-cleanups';
import { JobChildren } from './job-children';
import {
  AwaitChildren,
  ChildOutcome,
  ChildResult,
  CompletedWithErrors,
  JobContext,
  JobLostError,
  JobTerminatedError,
  PermanentJobError,
  ProgressDetail,
} from './job-handler';
import { JobHandlers } from './job-handlers';
import { JobMessage } from './job-message';
import { JOBS_MAX_DELIVER, JobQueue } from './job-queue';
import { Job, JobsRepository } from './jobs.repository';
import { FINAL_JOB_STATUSES } from './schemas/job.schema';

const SHUTDOWN_GRACE_MS = 3000;

/** An attempt that failed, its message already saying what failed (`database unreachable: …`). */
class AttemptFailed extends Error {}

/**
 * Takes jobs from the queue and runs them with their handler: one skeleton for every job type.
 * It marks the attempt running, keeps a heartbeat while it runs (the queue's ack deadline and
 * the record's `heartbeatAt`, which the reaper reads), records progress, ends the job with its
 * outcome and logs each step. A fault a retry cannot fix (`PermanentJobError`) fails the job at
 * once; any other is retried with backoff up to `JOBS_MAX_DELIVER` attempts, reported as what it
 * is (`database unreachable: …`). A job that ends failed or terminated has its clean-up run.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private stopped = false;
  private readonly instance: string;
  private readonly heartbeatMs: number;
  /** The last fault of each job's attempts on this instance, for its dead letter when the database could not record it. */
  private readonly lastFaults = new Map<string, string>();

  constructor(
    private readonly jobs: JobsRepository,
    private readonly queue: JobQueue,
    private readonly handlers: JobHandlers,
    private readonly cleanups: JobCleanups,
    private readonly children: JobChildren,
    private readonly metrics: Metrics,
    env: CostassetEnvironment,
  ) {
    this.instance = env.INSTANCE_ID;
    this.heartbeatMs = env.JOBS_HEARTBEAT_DEADLINE_MS / 6;
  }

  onApplicationBootstrap(): void {
    void this.startConsumer();
  }

  /**
   * Stops taking work. A job still running is not awaited past a few seconds: its delivery is
   * left unacked and JetStream redelivers it (to this or another instance) after the ack wait.
   */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await Promise.race([this.queue.stop(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
  }

  private async startConsumer(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.queue.ensure();
        this.queue.start(
          (message, delivery) => this.traced(message, delivery),
          (letter) => this.deadLettered(letter),
        );
        return;
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'job queue not ready; retrying');
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
      }
    }
  }

  /**
   * One attempt as a span of the submitting request's trace, linked to it, whichever instance runs
   * it and however often it is redelivered.
   */
  private traced(message: JobMessage, delivery: DeliveryContext): Promise<void> {
    const { traceparent, tracestate } = message;
    const submitted = { traceparent, tracestate };
    return inSpan(
      'job attempt',
      {
        kind: 'consumer',
        parent: submitted,
        links: [submitted],
        attributes: { 'corelite.tenant.id': message.tenantId, 'corelite.job.id': message.jobId, 'corelite.job.attempt': delivery.attempt },
      },
      () =>
        this.deliver(message, delivery).catch((error: unknown) => {
          // a fault before the handler ran (the job's record unreadable) is reported as what it is too
          throw error instanceof AttemptFailed ? error : new AttemptFailed(describeFault(error));
        }),
    );
  }

  private async deliver(message: JobMessage, delivery: DeliveryContext): Promise<void> {
    const { tenantId, jobId, run } = message;
    const current = await this.jobs.findOne(tenantId, { jobId });
    if (!current || current.run !== run || FINAL_JOB_STATUSES.includes(current.status)) return;
    if (delivery.attempt > JOBS_MAX_DELIVER)
      throw new Error(current.error ?? this.lastFaults.get(jobId) ?? `interrupted ${JOBS_MAX_DELIVER} times`);
    let children: ChildOutcome[] | undefined;
    if (current.waiting) {
      // the parent's own message redelivered (spawned again, harmlessly), or its resumption
      await this.children.spawn(current);
      children = await this.children.claim(current);
      if (!children) return;
    } else if (current.children) children = await this.children.outcomes(current);
    const handler = this.handlers.get(current.type);
    setSpanAttributes({ 'corelite.job.type': current.type });
    if (!handler) {
      await this.jobs.end(tenantId, jobId, 'failed', { error: `no handler for job type ${current.type}` });
      return;
    }
    const fields = this.describe(current, delivery.attempt);
    if (current.terminateRequested) {
      await this.endWithCleanup(current, 'terminated', {});
      this.logger.log(fields, 'job terminated');
      return;
    }
    // a run resumed after its children goes on with the attempt that spawned them: only a redelivery counts again
    const resumed = children !== undefined && delivery.attempt === 1;
    await this.jobs.updateOne(
      tenantId,
      { jobId, run },
      {
        $set: { status: 'running', heartbeatAt: new Date(), ...(resumed ? {} : { startedAt: new Date() }) },
        $inc: { attempts: resumed ? 0 : 1 },
        $unset: { error: 1 },
      },
    );
    const context: JobContext<never> = {
      tenantId,
      jobId,
      payload: current.payload as never,
      attempt: delivery.attempt,
      progress: (done, total, detail) => this.progress(message, done, total, delivery, detail),
      ...(children ? { children } : {}),
    };
    const started = Date.now();
    const elapsed = () => ({ ...fields, durationMs: Date.now() - started });
    this.logger.log(fields, 'job started');
    this.metrics.jobStarted(current.type, delivery.attempt);
    const ended = (status: string) => this.metrics.jobFinished(current.type, status, (Date.now() - started) / 1000);
    const heartbeat = setInterval(() => void this.beat(message, delivery), this.heartbeatMs);
    heartbeat.unref();
    try {
      const result = await handler.run(context);
      if (result instanceof AwaitChildren) {
        await this.children.await(current, result);
        this.logger.log({ ...elapsed(), parts: result.payloads.length }, 'job waiting for its parts');
        return;
      }
      const status = result instanceof CompletedWithErrors ? 'completed_with_errors' : 'succeeded';
      const outcome = result instanceof CompletedWithErrors || result instanceof ChildResult ? result.result : result;
      const handoff = result instanceof ChildResult ? { handoff: result.handoff } : {};
      if (!(await this.jobs.end(tenantId, jobId, status, { result: outcome, ...handoff }))) throw new JobLostError('ended');
      this.lastFaults.delete(jobId);
      await this.children.succeeded(current).catch((error: unknown) => {
        // the reaper resumes the parent later
        this.logger.warn({ ...fields, err: (error as Error).message }, 'could not resume the parent of this part');
      });
      ended(status);
      if (status === 'succeeded') this.logger.log(elapsed(), 'job succeeded');
      else this.logger.warn(elapsed(), 'job completed with errors');
    } catch (error) {
      await this.attemptFailed(current, error, delivery.attempt, elapsed());
      ended(error instanceof JobTerminatedError ? 'terminated' : error instanceof PermanentJobError ? 'failed' : 'retried');
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async attemptFailed(job: Job, error: unknown, attempt: number, fields: Record<string, unknown>): Promise<void> {
    const reason = describeFault(error);
    if (error instanceof JobTerminatedError) {
      await this.endWithCleanup(job, 'terminated', {});
      this.logger.log(fields, 'job terminated');
      return;
    }
    if (error instanceof PermanentJobError) {
      await this.endWithCleanup(job, 'failed', { error: reason, result: error.details });
      this.logger.warn({ ...fields, reason }, 'job failed');
      return;
    }
    if (error instanceof JobLostError) {
      // whoever ended it ran the clean-up, possibly before this attempt's last writes: run it again
      const ended = await this.jobs.findOne(job.tenantId, { jobId: job.jobId });
      if (ended && ended.run === job.run) await this.cleanups.run(ended);
      this.logger.warn({ ...fields, reason }, 'job attempt stopped: the job was ended elsewhere');
      return;
    }
    const retries = attempt < JOBS_MAX_DELIVER;
    this.lastFaults.set(job.jobId, reason);
    this.logger.warn(
      { ...fields, reason },
      retries ? 'job attempt failed; it will be retried' : 'job attempt failed; it was the last attempt',
    );
    await this.jobs
      .updateOne(job.tenantId, { jobId: job.jobId, run: job.run }, { $set: { error: reason, ...(retries ? { status: 'queued' } : {}) } })
      .catch(() => undefined);
    throw new AttemptFailed(reason);
  }

  private async endWithCleanup(job: Job, status: 'failed' | 'terminated', fields: { error?: string; result?: Record<string, unknown> }) {
    const ended = await this.jobs.end(job.tenantId, job.jobId, status, fields, true);
    if (ended) await this.cleanups.run({ ...ended, status, error: fields.error });
  }

  /** Best effort: a beat that cannot be written (its connection gone) is the reaper's sign of a lost worker. */
  private async beat(message: JobMessage, delivery: DeliveryContext): Promise<void> {
    try {
      delivery.heartbeat();
      await this.jobs.heartbeat(message.tenantId, message.jobId, message.run);
    } catch {
      // the next beat tries again
    }
  }

  private async progress(
    message: JobMessage,
    done: number,
    total: number,
    delivery: DeliveryContext,
    detail: ProgressDetail = {},
  ): Promise<void> {
    delivery.heartbeat();
    const percent = total > 0 ? Math.min(100, Math.round((done / total) * 1000) / 10) : 0;
    // a reader may count a few bytes twice (a Parquet footer): done never passes total
    const set: Record<string, unknown> = {
      'progress.done': total > 0 ? Math.min(done, total) : done,
      'progress.total': total,
      'progress.percent': percent,
      heartbeatAt: new Date(),
    };
    if (detail.rows !== undefined) set['progress.rows'] = detail.rows;
    const { tenantId, jobId, run } = message;
    const job = await this.jobs.findOneAndUpdate(tenantId, { jobId, run, status: 'running' }, { $set: set });
    if (!job) throw new JobLostError((await this.jobs.findOne(tenantId, { jobId }))?.status ?? 'removed');
    if (job.terminateRequested) throw new JobTerminatedError();
  }

  private async deadLettered(letter: DeadLetter<JobMessage>): Promise<void> {
    const { tenantId, jobId, run } = letter.payload;
    const job = await this.jobs.findOne(tenantId, { jobId, run });
    if (!job) return;
    const ended = await this.jobs.end(tenantId, jobId, 'failed', { error: letter.error }, true);
    this.lastFaults.delete(jobId);
    if (!ended) return;
    this.logger.error({ ...this.describe(job, job.attempts), reason: letter.error }, `job failed after ${JOBS_MAX_DELIVER} attempts`);
    await this.cleanups.run({ ...ended, status: 'failed', error: letter.error });
  }

  /** The fields every job log line carries, so an operator can tell which instance ran which attempt. */
  private describe(job: Pick<Job, 'jobId' | 'type' | 'tenantId'>, attempt: number): Record<string, unknown> {
    return { jobId: job.jobId, type: job.type, tenantId: job.tenantId, attempt, instance: this.instance };
  }
}
