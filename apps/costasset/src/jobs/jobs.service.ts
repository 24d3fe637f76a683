import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Problems } from '@lib/http';
import { DeadLetter, DeliveryContext, NatsConnectionProvider, WorkQueue } from '@lib/messaging';
import { CostassetEnvironment } from '../costasset.environment';
import { CompletedWithErrors, JobContext, JobHandler, JobTerminatedError, PermanentJobError, ProgressDetail } from './job-handler';
import { JobsRepository } from './jobs.repository';
import { FINAL_JOB_STATUSES, JobRecord, JobStatus } from './schemas/job.schema';

/** What travels on the queue: only ids; the job record is the truth. */
export interface JobMessage {
  tenantId: string;
  jobId: string;
  run: number;
}

export const JOBS_STREAM = 'COSTASSET_JOBS';
export const JOBS_SUBJECT = 'costasset.jobs';
/** Attempts that run the handler. */
export const JOBS_MAX_DELIVER = 3;
const SHUTDOWN_GRACE_MS = 3000;
const FINAL = FINAL_JOB_STATUSES;

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

  constructor(
    private readonly jobs: JobsRepository,
    nats: NatsConnectionProvider,
    env: CostassetEnvironment,
  ) {
    this.queue = new WorkQueue<JobMessage>(nats, {
      stream: JOBS_STREAM,
      subject: JOBS_SUBJECT,
      durable: 'costasset-jobs',
      // one delivery beyond the attempts: it only dead-letters, so that a job whose last attempt
      // crashed (no ack, no error) still ends `failed` instead of staying `running`
      maxDeliver: JOBS_MAX_DELIVER + 1,
      ackWaitMs: env.JOBS_ACK_WAIT_MS,
      retryDelayMs: env.JOBS_RETRY_DELAY_MS,
    });
  }

  register<P>(type: string, handler: JobHandler<P>): void {
    this.handlers.set(type, handler as JobHandler<never>);
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
          (message, delivery) => this.deliver(message, delivery),
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

  async submit(tenantId: string, type: string, payload: Record<string, unknown>): Promise<Job> {
    const jobId = randomUUID();
    const job = await this.jobs.create(tenantId, {
      jobId,
      type,
      status: 'queued',
      payload,
      progress: { done: 0, total: 0, percent: 0 },
      attempts: 0,
      run: 0,
      terminateRequested: false,
    });
    await this.publish({ tenantId, jobId, run: 0 });
    return job;
  }

  /** Starts a new run of a failed or terminated job. */
  async rerun(tenantId: string, jobId: string): Promise<Job | null> {
    const job = await this.jobs.findOneAndUpdate(
      tenantId,
      { jobId, status: { $in: ['failed', 'terminated'] } },
      {
        $set: { status: 'queued', terminateRequested: false, progress: { done: 0, total: 0, percent: 0 } },
        $inc: { run: 1 },
        $unset: { error: 1, result: 1, finishedAt: 1 },
      },
    );
    if (job) await this.publish({ tenantId, jobId, run: job.run });
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

  page(tenantId: string, filter: { type?: string; status?: string }, limit: number, cursor?: string) {
    const query = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
    return this.jobs.page(tenantId, query, limit, cursor);
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

  private async deliver(message: JobMessage, delivery: DeliveryContext): Promise<void> {
    const { tenantId, jobId } = message;
    const current = await this.jobs.findOne(tenantId, { jobId });
    if (!current || current.run !== message.run || FINAL.includes(current.status)) return;
    if (delivery.attempt > JOBS_MAX_DELIVER) throw new Error(current.error ?? `interrupted ${JOBS_MAX_DELIVER} times`);
    const handler = this.handlers.get(current.type);
    const ref = { tenantId, jobId, payload: current.payload as never };
    if (!handler) {
      await this.finish(tenantId, jobId, 'failed', { error: `no handler for job type ${current.type}` });
      return;
    }
    if (current.terminateRequested) {
      await this.finish(tenantId, jobId, 'terminated', {});
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
    try {
      const result = await handler.run(context);
      if (result instanceof CompletedWithErrors) await this.finish(tenantId, jobId, 'completed_with_errors', { result: result.result });
      else await this.finish(tenantId, jobId, 'succeeded', { result });
    } catch (error) {
      const reason = (error as Error).message ?? String(error);
      if (error instanceof JobTerminatedError) {
        await this.finish(tenantId, jobId, 'terminated', {});
        await handler.onTerminated?.(ref);
        return;
      }
      if (error instanceof PermanentJobError) {
        await this.finish(tenantId, jobId, 'failed', { error: reason, result: error.details });
        await handler.onFailed?.(ref, reason);
        return;
      }
      this.logger.warn({ jobId, attempt: delivery.attempt, err: reason }, 'job attempt failed');
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
    const job = await this.jobs.findOneAndUpdate(tenantId, { jobId }, { $set: { progress: { done, total, percent, ...detail } } });
    if (job?.terminateRequested) throw new JobTerminatedError();
  }

  private async deadLettered(letter: DeadLetter<JobMessage>): Promise<void> {
    const { tenantId, jobId, run } = letter.payload;
    const job = await this.jobs.findOneAndUpdate(
      tenantId,
      { jobId, run, status: { $nin: FINAL } },
      { $set: { status: 'failed', error: letter.error, finishedAt: new Date() } },
    );
    if (job) await this.handlers.get(job.type)?.onFailed?.({ tenantId, jobId, payload: job.payload as never }, letter.error);
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
