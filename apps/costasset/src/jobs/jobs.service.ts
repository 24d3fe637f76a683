import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { isDuplicateKey, Problems } from '@lib/core';
import { DeadLetter, DeliveryContext, NatsConnectionProvider, WorkQueue } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { currentTraceCarrier, inSpan, setSpanAttributes } from '@lib/tracing';
import { CostassetEnvironment } from '../costasset.environment';
import { CompletedWithErrors, JobContext, JobHandler, JobTerminatedError, PermanentJobError, ProgressDetail } from './job-handler';
import { JobMessage } from './job-message';
import { JobsRepository } from './jobs.repository';
import { FINAL_JOB_STATUSES, JobProgress, JobRecord, JobStatus, JobSubmitter } from './schemas/job.schema';

export const JOBS_STREAM = 'COSTASSET_JOBS';
export const JOBS_SUBJECT = 'costasset.jobs';
/** Attempts that run the handler. */
export const JOBS_MAX_DELIVER = 3;
const SHUTDOWN_GRACE_MS = 3000;

type Job = JobRecord & { _id: unknown };

/**
 * Runs long work as jobs on one JetStream work queue shared by every instance. A job is
 * published with its id as message id (a repeated submission is stored once), dispatched by
 * `type` to the registered handler, retried up to `JOBS_MAX_DELIVER` attempts, and marked
 * failed when it is dead-lettered. A retry starts a new run with a new message id.
 */
@Injectable()
export class JobsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly handlers = new Map<string, JobHandler<never>>();
  private readonly queue: WorkQueue<JobMessage>;
  private ensured?: Promise<void>;
  private stopped = false;
  private readonly instance: string;

  constructor(
    private readonly jobs: JobsRepository,
    nats: NatsConnectionProvider,
    env: CostassetEnvironment,
    private readonly metrics: Metrics,
  ) {
    this.instance = env.INSTANCE_ID;
    this.queue = new WorkQueue<JobMessage>(nats, {
      payload: JobMessage,
      stream: JOBS_STREAM,
      subject: JOBS_SUBJECT,
      durable: 'costasset-jobs',
      // one delivery beyond the attempts: it only dead-letters, so that a job whose last attempt
      // crashed (no ack, no error) still ends `failed` instead of staying `running`
      maxDeliver: JOBS_MAX_DELIVER + 1,
      ackWaitMs: env.JOBS_ACK_WAIT_MS,
      retryDelayMs: env.JOBS_RETRY_DELAY_MS,
    });
    metrics.watchQueueDepth(JOBS_STREAM, () => this.queue.depth());
  }

  register<P>(type: string, handler: JobHandler<P>): void {
    this.handlers.set(type, handler as JobHandler<never>);
  }

  /** Whether the caller may read and terminate a job: the one who asked for it, or a System Admin. */
  mayAccess(principal: Principal, job: Pick<JobRecord, 'submittedBy'>): boolean {
    return principal.isSystemAdmin || (job.submittedBy?.userId === principal.userId && job.submittedBy.idpId === principal.idpId);
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
        await this.ensureQueue();
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

  private ensureQueue(): Promise<void> {
    this.ensured ??= this.queue.ensure().catch((error: unknown) => {
      this.ensured = undefined;
      throw error;
    });
    return this.ensured;
  }

  /** Queues a job; `submittedBy` (the caller) may then follow and terminate it. */
  async submit(tenantId: string, type: string, payload: Record<string, unknown>, submittedBy?: JobSubmitter): Promise<Job> {
    const jobId = randomUUID();
    const job = await this.jobs.create(tenantId, {
      jobId,
      type,
      ...(submittedBy ? { submittedBy: { userId: submittedBy.userId, idpId: submittedBy.idpId } } : {}),
      status: 'queued',
      payload,
      progress: this.initialProgress(type),
      attempts: 0,
      run: 0,
      terminateRequested: false,
    });
    await this.publish({ tenantId, jobId, run: 0, ...currentTraceCarrier() });
    return job;
  }

  /**
   * Queues the job named by `key` (e.g. `anomalies:<tenant>:<day>`) unless it was queued before, by
   * this or any other instance: its id is a UUID derived from the key, the record is unique on it
   * and the queue's message id is that id. A record still `queued` is published again (a crash
   * between the record and the publish), which the queue's message id makes harmless. Answers
   * whether this call created the job.
   */
  async submitOnce(tenantId: string, type: string, payload: Record<string, unknown>, key: string): Promise<boolean> {
    const jobId = keyedJobId(key);
    try {
      await this.jobs.create(tenantId, {
        jobId,
        type,
        status: 'queued',
        payload,
        progress: this.initialProgress(type),
        attempts: 0,
        run: 0,
        terminateRequested: false,
      });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await this.jobs.findOne(tenantId, { jobId, status: 'queued', run: 0 });
      if (existing) await this.queue.enqueue({ tenantId, jobId, run: 0 }, jobId).catch(() => undefined);
      return false;
    }
    await this.publish({ tenantId, jobId, run: 0, ...currentTraceCarrier() });
    return true;
  }

  private initialProgress(type: string): JobProgress {
    return { done: 0, total: 0, percent: 0, unit: this.handlers.get(type)?.progressUnit };
  }

  /** Starts a new run of a failed or terminated job. */
  async rerun(tenantId: string, jobId: string): Promise<Job | null> {
    const job = await this.jobs.findOneAndUpdate(
      tenantId,
      { jobId, status: { $in: ['failed', 'terminated'] } },
      {
        $set: { status: 'queued', terminateRequested: false, 'progress.done': 0, 'progress.total': 0, 'progress.percent': 0 },
        $inc: { run: 1 },
        $unset: { error: 1, result: 1, finishedAt: 1 },
      },
    );
    if (job) await this.publish({ tenantId, jobId, run: job.run, ...currentTraceCarrier() });
    return job;
  }

  /** A queued job ends at once; a running one stops at its next progress report. */
  async terminate(tenantId: string, jobId: string): Promise<Job | null> {
    const queued = await this.jobs.findOneAndUpdate(
      tenantId,
      { jobId, status: 'queued' },
      { $set: { status: 'terminated', terminateRequested: true, finishedAt: new Date() } },
    );
    if (queued) {
      this.logger.log(this.describe(queued, { attempt: queued.attempts }), 'job terminated before it started');
      await this.handlers.get(queued.type)?.onTerminated?.({ tenantId, jobId, payload: queued.payload as never });
      return queued;
    }
    return this.jobs.findOneAndUpdate(tenantId, { jobId, status: 'running' }, { $set: { terminateRequested: true } });
  }

  get(tenantId: string, jobId: string): Promise<Job | null> {
    return this.jobs.findOne(tenantId, { jobId });
  }

  /** Queued or running jobs of the given types (at most 1,000). */
  active(tenantId: string, types: string[]): Promise<Job[]> {
    return this.jobs.find(tenantId, { type: { $in: types }, status: { $in: ['queued', 'running'] } }, { limit: 1000 });
  }

  /** The jobs the caller may see: every job for a System Admin, its own for anyone else. */
  page(principal: Principal, filter: { type?: string; status?: string }, limit: number, cursor?: string) {
    const query: Record<string, unknown> = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
    if (!principal.isSystemAdmin) Object.assign(query, { 'submittedBy.userId': principal.userId, 'submittedBy.idpId': principal.idpId });
    return this.jobs.page(principal.tenantId, query, limit, cursor);
  }

  private async publish(message: JobMessage): Promise<void> {
    try {
      await this.ensureQueue();
      await this.queue.enqueue(message, message.run === 0 ? message.jobId : `${message.jobId}.run${message.run}`);
    } catch (error) {
      this.logger.error({ err: (error as Error).message, jobId: message.jobId }, 'cannot enqueue job');
      await this.finish(message.tenantId, message.jobId, 'failed', { error: 'the job queue is unavailable' });
      throw Problems.unavailable('JOB_QUEUE_UNAVAILABLE', 'The job could not be started; try again later');
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
      () => this.deliver(message, delivery),
    );
  }

  private async deliver(message: JobMessage, delivery: DeliveryContext): Promise<void> {
    const { tenantId, jobId } = message;
    const current = await this.jobs.findOne(tenantId, { jobId });
    if (!current || current.run !== message.run || FINAL_JOB_STATUSES.includes(current.status)) return;
    if (delivery.attempt > JOBS_MAX_DELIVER) throw new Error(current.error ?? `interrupted ${JOBS_MAX_DELIVER} times`);
    const handler = this.handlers.get(current.type);
    setSpanAttributes({ 'corelite.job.type': current.type });
    const ref = { tenantId, jobId, payload: current.payload as never };
    if (!handler) {
      await this.finish(tenantId, jobId, 'failed', { error: `no handler for job type ${current.type}` });
      return;
    }
    const fields = this.describe(current, { attempt: delivery.attempt });
    if (current.terminateRequested) {
      await this.finish(tenantId, jobId, 'terminated', {});
      this.logger.log(fields, 'job terminated');
      await handler.onTerminated?.(ref);
      return;
    }
    await this.jobs.updateOne(
      tenantId,
      { jobId },
      { $set: { status: 'running', startedAt: new Date() }, $inc: { attempts: 1 }, $unset: { error: 1 } },
    );
    const context: JobContext<never> = {
      ...ref,
      attempt: delivery.attempt,
      progress: (done, total, detail) => this.progress(tenantId, jobId, done, total, delivery, detail),
    };
    const started = Date.now();
    this.logger.log(fields, 'job started');
    this.metrics.jobStarted(current.type, delivery.attempt);
    const ended = (status: string) => this.metrics.jobFinished(current.type, status, (Date.now() - started) / 1000);
    try {
      const result = await handler.run(context);
      if (result instanceof CompletedWithErrors) {
        await this.finish(tenantId, jobId, 'completed_with_errors', { result: result.result });
        ended('completed_with_errors');
        this.logger.warn({ ...fields, durationMs: Date.now() - started }, 'job completed with errors');
      } else {
        await this.finish(tenantId, jobId, 'succeeded', { result });
        ended('succeeded');
        this.logger.log({ ...fields, durationMs: Date.now() - started }, 'job succeeded');
      }
    } catch (error) {
      const reason = (error as Error).message ?? String(error);
      if (error instanceof JobTerminatedError) {
        await this.finish(tenantId, jobId, 'terminated', {});
        ended('terminated');
        this.logger.log({ ...fields, durationMs: Date.now() - started }, 'job terminated');
        await handler.onTerminated?.(ref);
        return;
      }
      if (error instanceof PermanentJobError) {
        await this.finish(tenantId, jobId, 'failed', { error: reason, result: error.details });
        ended('failed');
        this.logger.warn({ ...fields, durationMs: Date.now() - started, reason }, 'job failed');
        await handler.onFailed?.(ref, reason);
        return;
      }
      const retries = delivery.attempt < JOBS_MAX_DELIVER;
      ended(retries ? 'retried' : 'failed');
      this.logger.warn(
        { ...fields, reason },
        retries ? 'job attempt failed; it will be retried' : 'job attempt failed; it was the last attempt',
      );
      await this.jobs.updateOne(
        tenantId,
        { jobId },
        { $set: { error: reason, ...(delivery.attempt < JOBS_MAX_DELIVER ? { status: 'queued' } : {}) } },
      );
      throw error;
    }
  }

  private async progress(
    tenantId: string,
    jobId: string,
    done: number,
    total: number,
    delivery: DeliveryContext,
    detail: ProgressDetail = {},
  ): Promise<void> {
    delivery.heartbeat();
    const percent = total > 0 ? Math.min(100, Math.round((done / total) * 1000) / 10) : 0;
    // a reader may count a few bytes twice (a Parquet footer): done never passes total
    const set: Record<string, number> = {
      'progress.done': total > 0 ? Math.min(done, total) : done,
      'progress.total': total,
      'progress.percent': percent,
    };
    if (detail.rows !== undefined) set['progress.rows'] = detail.rows;
    const job = await this.jobs.findOneAndUpdate(tenantId, { jobId }, { $set: set });
    if (job?.terminateRequested) throw new JobTerminatedError();
  }

  private async deadLettered(letter: DeadLetter<JobMessage>): Promise<void> {
    const { tenantId, jobId, run } = letter.payload;
    const job = await this.jobs.findOneAndUpdate(
      tenantId,
      { jobId, run, status: { $nin: FINAL_JOB_STATUSES } },
      { $set: { status: 'failed', error: letter.error, finishedAt: new Date() } },
    );
    if (!job) return;
    this.logger.error(this.describe(job, { attempt: job.attempts }, letter.error), `job failed after ${JOBS_MAX_DELIVER} attempts`);
    await this.handlers.get(job.type)?.onFailed?.({ tenantId, jobId, payload: job.payload as never }, letter.error);
  }

  /** The fields every job log line carries, so an operator can tell which instance ran which attempt. */
  private describe(job: Pick<Job, 'jobId' | 'type' | 'tenantId'>, at: { attempt: number }, reason?: string): Record<string, unknown> {
    return {
      jobId: job.jobId,
      type: job.type,
      tenantId: job.tenantId,
      attempt: at.attempt,
      instance: this.instance,
      ...(reason ? { reason } : {}),
    };
  }

  private async finish(
    tenantId: string,
    jobId: string,
    status: JobStatus,
    fields: { error?: string; result?: Record<string, unknown> },
  ): Promise<void> {
    const progress = status === 'succeeded' || status === 'completed_with_errors' ? { 'progress.percent': 100 } : {};
    await this.jobs.updateOne(tenantId, { jobId }, { $set: { status, finishedAt: new Date(), ...fields, ...progress } });
  }
}

/** A UUID (version 5 layout) derived from a key: the same key gives the same job id on every instance. */
export function keyedJobId(key: string): string {
  const hash = createHash('sha1').update(`corelite-job:${key}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
