import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { isDuplicateKey, Problems } from '@lib/core';
import { currentTraceCarrier } from '@lib/tracing';
import { CostassetEnvironment } from '../costasset.environment';
import { JobCleanups } from './job-cleanups';
import { JobHandlers } from './job-handlers';
import { JobMessage } from './job-message';
import { JobQueue } from './job-queue';
import type { JobType } from './job-types';
import { Job, JobsRepository } from './jobs.repository';
import { JobProgress, JobRecord, JobSubmitter } from './schemas/job.schema';

/**
 * Submits and controls jobs; `JobRunner` runs them. A job is published with its id as message id
 * (a repeated submission is stored once) on the one work queue every instance takes from. A
 * retry starts a new run with a new message id.
 */
@Injectable()
export class JobsService {
  private readonly logger = new Logger('Jobs');
  private readonly staleAfterMs: number;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly queue: JobQueue,
    private readonly handlers: JobHandlers,
    private readonly cleanups: JobCleanups,
    env: CostassetEnvironment,
  ) {
    this.staleAfterMs = env.JOBS_HEARTBEAT_DEADLINE_MS;
  }

  /** Whether the caller may read and terminate a job: the one who asked for it, or a System Admin. */
  mayAccess(principal: Principal, job: Pick<JobRecord, 'submittedBy'>): boolean {
    return principal.isSystemAdmin || (job.submittedBy?.userId === principal.userId && job.submittedBy.idpId === principal.idpId);
  }

  /** Queues a job; `submittedBy` (the caller) may then follow and terminate it. */
  async submit(tenantId: string, type: JobType, payload: Record<string, unknown>, submittedBy?: JobSubmitter): Promise<Job> {
    const jobId = randomUUID();
    const job = await this.jobs.create(tenantId, {
      ...this.newJob(jobId, type, payload),
      ...(submittedBy ? { submittedBy: { userId: submittedBy.userId, idpId: submittedBy.idpId } } : {}),
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
  async submitOnce(
    tenantId: string,
    type: JobType,
    payload: Record<string, unknown>,
    key: string,
    links: Pick<JobRecord, 'parentJobId' | 'parentRun' | 'childIndex' | 'submittedBy'> = {},
  ): Promise<boolean> {
    const jobId = keyedJobId(key);
    try {
      await this.jobs.create(tenantId, { ...this.newJob(jobId, type, payload), ...links });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await this.jobs.findOne(tenantId, { jobId, status: 'queued', run: 0 });
      if (existing) await this.queue.enqueue({ tenantId, jobId, run: 0 }).catch(() => undefined);
      return false;
    }
    await this.publish({ tenantId, jobId, run: 0, ...currentTraceCarrier() });
    return true;
  }

  private newJob(jobId: string, type: JobType, payload: Record<string, unknown>): Omit<JobRecord, 'tenantId'> {
    const progress: JobProgress = { done: 0, total: 0, percent: 0, unit: this.handlers.progressUnit(type) };
    return { jobId, type, status: 'queued', payload, progress, attempts: 0, run: 0, terminateRequested: false };
  }

  /** Starts a new run of a failed or terminated job. */
  async rerun(tenantId: string, jobId: string): Promise<Job | null> {
    const job = await this.jobs.findOneAndUpdate(
      tenantId,
      { jobId, status: { $in: ['failed', 'terminated'] } },
      {
        $set: { status: 'queued', terminateRequested: false, 'progress.done': 0, 'progress.total': 0, 'progress.percent': 0 },
        $inc: { run: 1 },
        $unset: { error: 1, result: 1, finishedAt: 1, children: 1, waiting: 1 },
      },
    );
    if (job) await this.publish({ tenantId, jobId, run: job.run, ...currentTraceCarrier() });
    return job;
  }

  /**
   * A queued job ends at once; a running one stops at its next progress report, or at once when
   * its worker is gone (no heartbeat for JOBS_HEARTBEAT_DEADLINE_MS) or it waits for its children.
   * Either way its clean-up runs, and its children are asked to stop.
   */
  async terminate(tenantId: string, jobId: string): Promise<Job | null> {
    const stale = new Date(Date.now() - this.staleAfterMs);
    const now = await this.jobs.findOneAndUpdate(
      tenantId,
      { jobId, $or: [{ status: 'queued' }, { status: 'running', heartbeatAt: { $lt: stale } }, { status: 'running', waiting: true }] },
      { $set: { status: 'terminated', terminateRequested: true, finishedAt: new Date(), cleanupPending: true } },
    );
    if (now) {
      this.logger.log({ jobId, type: now.type, tenantId }, 'job terminated before it started, or without a worker');
      await this.jobs.stopChildren(now);
      await this.cleanups.run(now);
      return now;
    }
    const running = await this.jobs.findOneAndUpdate(tenantId, { jobId, status: 'running' }, { $set: { terminateRequested: true } });
    if (running) await this.jobs.stopChildren(running);
    return running;
  }

  /** One job; while it waits for its children, its progress is theirs summed. */
  async get(tenantId: string, jobId: string): Promise<Job | null> {
    const job = await this.jobs.findOne(tenantId, { jobId });
    if (!job?.waiting) return job;
    const children = await this.jobs.childrenOf(job, { progress: 1 });
    const done = children.reduce((sum, child) => sum + (child.progress?.done ?? 0), 0);
    const rows = children.reduce((sum, child) => sum + (child.progress?.rows ?? 0), 0);
    const total = job.progress.total;
    const percent = total > 0 ? Math.min(100, Math.round((done / total) * 1000) / 10) : 0;
    return { ...job, progress: { ...job.progress, done: total > 0 ? Math.min(done, total) : done, percent, rows } };
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
      await this.queue.enqueue(message);
    } catch (error) {
      this.logger.error({ err: (error as Error).message, jobId: message.jobId }, 'cannot enqueue job');
      await this.jobs.end(message.tenantId, message.jobId, 'failed', { error: 'the job queue is unavailable' });
      throw Problems.unavailable('JOB_QUEUE_UNAVAILABLE', 'The job could not be started; try again later');
    }
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
