import { Logger } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { DeadLetter, DeliveryContext, WorkQueue } from '@lib/messaging';
import type { Metrics } from '@lib/metrics';
import type { CostassetEnvironment } from '../costasset.environment';
import { TransientFault } from './faults';
import { JobChildren } from './job-children';
import { toJobDto } from './dto/job.dto';
import { JobCleanups } from './job-cleanups';
import { AwaitChildren, ChildResult, CompletedWithErrors, JobContext, JobHandler, PermanentJobError } from './job-handler';
import type { JobHandlers } from './job-handlers';
import type { JobMessage } from './job-message';
import { JOBS_MAX_DELIVER, JobQueue } from './job-queue';
import { JobReaper } from './job-reaper';
import { JobRunner } from './job-runner';
import type { JobType } from './job-types';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import type { JobRecord } from './schemas/job.schema';

/**
 * The job runner's rules (JobRunner, JobsService, JobReaper), with the job records in memory and the JetStream work queue replaced by
 * a simulation of its contract (WorkQueue.deliver): a delivery that throws is redelivered with the
 * next attempt number until the queue's `maxDeliver`, then dead-lettered; one that resolves is acked.
 */

type Doc = Record<string, unknown>;

const valueAt = (doc: Doc, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value == null ? undefined : (value as Doc)[key]), doc);

function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$or') return (condition as Doc[]).some((branch) => matches(doc, branch));
    const value = valueAt(doc, key);
    if (condition && typeof condition === 'object' && !Array.isArray(condition) && !(condition instanceof Date)) {
      return Object.entries(condition as Doc).every(([operator, operand]) => {
        if (operator === '$in') return (operand as unknown[]).includes(value);
        if (operator === '$nin') return !(operand as unknown[]).includes(value);
        if (operator === '$ne') return value !== operand;
        if (operator === '$lt') return value !== undefined && (value as Date) < (operand as Date);
        throw new Error(`operator ${operator} not simulated`);
      });
    }
    return value === condition;
  });
}

function setAt(doc: Doc, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() as string;
  const parent = keys.reduce<Doc>((at, key) => (at[key] ??= {}) as Doc, doc);
  parent[last] = value;
}

function apply(doc: Doc, update: Doc): void {
  for (const [path, value] of Object.entries((update.$set ?? {}) as Doc)) setAt(doc, path, value);
  for (const [path, value] of Object.entries((update.$inc ?? {}) as Doc))
    setAt(doc, path, ((valueAt(doc, path) as number) ?? 0) + (value as number));
  for (const path of Object.keys((update.$unset ?? {}) as Doc)) {
    const keys = path.split('.');
    const last = keys.pop() as string;
    const parent = keys.reduce<Doc | undefined>((at, key) => at?.[key] as Doc | undefined, doc);
    if (parent) delete parent[last];
  }
}

/** The JobsRepository methods the runner uses, over an array (copies out, like `lean()`); its own methods are the real ones. */
class InMemoryJobs {
  readonly docs: Doc[] = [];
  readonly end = JobsRepository.prototype.end;
  readonly cleanupDone = JobsRepository.prototype.cleanupDone;
  readonly heartbeat = JobsRepository.prototype.heartbeat;
  readonly childrenOf = JobsRepository.prototype.childrenOf;
  readonly stopChildren = JobsRepository.prototype.stopChildren;

  async staleAcrossTenants(before: Date) {
    return this.docs
      .filter((doc) => doc.status === 'running' && doc.waiting !== true && (doc.heartbeatAt as Date) < before)
      .map((doc) => structuredClone(doc));
  }

  async waitingAcrossTenants(before: Date) {
    return this.docs
      .filter((doc) => doc.status === 'running' && doc.waiting === true && (doc.heartbeatAt as Date) < before)
      .map((doc) => structuredClone(doc));
  }

  async find(tenantId: string, filter: Doc) {
    return this.docs
      .filter((doc) => doc.tenantId === tenantId && matches(doc, filter))
      .sort((a, b) => ((a.childIndex as number) ?? 0) - ((b.childIndex as number) ?? 0))
      .map((doc) => structuredClone(doc));
  }

  async count(tenantId: string, filter: Doc) {
    return (await this.find(tenantId, filter)).length;
  }

  async updateMany(tenantId: string, filter: Doc, update: Doc) {
    const found = this.docs.filter((doc) => doc.tenantId === tenantId && matches(doc, filter));
    for (const doc of found) apply(doc, update);
    return found.length;
  }

  async pendingCleanupsAcrossTenants(before: Date) {
    return this.docs.filter((doc) => doc.cleanupPending === true && (doc.finishedAt as Date) < before).map((doc) => structuredClone(doc));
  }

  async create(tenantId: string, doc: Doc) {
    if (this.docs.some((existing) => existing.jobId === doc.jobId)) throw Object.assign(new Error('E11000'), { code: 11000 });
    const stored = { ...structuredClone(doc), tenantId, _id: `oid-${this.docs.length}` };
    this.docs.push(stored);
    return structuredClone(stored);
  }

  private first(tenantId: string, filter: Doc) {
    return this.docs.find((doc) => doc.tenantId === tenantId && matches(doc, filter));
  }

  async findOne(tenantId: string, filter: Doc) {
    const found = this.first(tenantId, filter);
    return found ? structuredClone(found) : null;
  }

  async findOneAndUpdate(tenantId: string, filter: Doc, update: Doc) {
    const found = this.first(tenantId, filter);
    if (!found) return null;
    apply(found, update);
    return structuredClone(found);
  }

  async updateOne(tenantId: string, filter: Doc, update: Doc) {
    const found = this.first(tenantId, filter);
    if (found) apply(found, update);
    return found ? 1 : 0;
  }

  record(jobId: string): JobRecord {
    return this.docs.find((doc) => doc.jobId === jobId) as unknown as JobRecord;
  }
}

type Deliver = (message: JobMessage, delivery: DeliveryContext) => Promise<void>;
type OnDeadLetter = (letter: DeadLetter<JobMessage>) => Promise<void>;

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  userId: 'u1',
  tenantId: 't1',
  idpId: 'idp1',
  groups: [],
  authType: 'internal' as Principal['authType'],
  teams: [],
  roles: [],
  isSystemAdmin: false,
  ...overrides,
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

const TEST_JOB = 'test.job' as JobType;
const HEARTBEAT_DEADLINE_MS = 60_000;

describe('JobRunner and JobsService', () => {
  let jobs: InMemoryJobs;
  let service: JobsService;
  let reaper: JobReaper;
  let registered: Map<string, JobHandler>;
  let published: { message: JobMessage; workId: string }[];
  let consumer: { deliver: Deliver; deadLetter: OnDeadLetter; maxDeliver: number };
  let metrics: { jobStarted: jest.Mock; jobFinished: jest.Mock; watchQueueDepth: jest.Mock };
  let enqueue: jest.SpyInstance;

  beforeEach(async () => {
    jobs = new InMemoryJobs();
    published = [];
    jest.spyOn(WorkQueue.prototype, 'ensure').mockResolvedValue(undefined);
    enqueue = jest.spyOn(WorkQueue.prototype, 'enqueue').mockImplementation(async (message: JobMessage, workId: string) => {
      published.push({ message, workId });
      return { duplicate: false };
    });
    jest.spyOn(WorkQueue.prototype, 'start').mockImplementation(function (this: WorkQueue<JobMessage>, deliver, deadLetter) {
      consumer = { deliver, deadLetter, maxDeliver: this.definition.maxDeliver };
    });
    metrics = { jobStarted: jest.fn(), jobFinished: jest.fn(), watchQueueDepth: jest.fn() };
    const env = {
      INSTANCE_ID: 'instance-1',
      JOBS_ACK_WAIT_MS: 30_000,
      JOBS_RETRY_DELAY_MS: 0,
      JOBS_HEARTBEAT_DEADLINE_MS: HEARTBEAT_DEADLINE_MS,
    } as CostassetEnvironment;
    registered = new Map();
    const handlers = {
      get: (type: string) => registered.get(type),
      progressUnit: (type: string) => registered.get(type)?.progressUnit,
    } as unknown as JobHandlers;
    const repository = jobs as unknown as JobsRepository;
    const queue = new JobQueue({} as never, env, metrics as unknown as Metrics);
    const cleanups = new JobCleanups(repository, handlers);
    service = new JobsService(repository, queue, handlers, cleanups, env);
    const children = new JobChildren(repository, queue, service, cleanups);
    const runner = new JobRunner(repository, queue, handlers, cleanups, children, metrics as unknown as Metrics, env);
    reaper = new JobReaper(repository, cleanups, children, env);
    runner.onApplicationBootstrap();
    await settle();
  });

  afterEach(() => jest.restoreAllMocks());
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose']));

  function handlerOf(run: JobHandler['run'], unit: JobHandler['progressUnit'] = 'rows') {
    const handler = {
      progressUnit: unit,
      run: jest.fn(run),
      onFailed: jest.fn(async () => undefined),
      onTerminated: jest.fn(async () => undefined),
    };
    registered.set(TEST_JOB, handler);
    return handler;
  }

  const heartbeat = jest.fn();
  /** One delivery as WorkQueue makes it: resolves (acked) or rejects (redelivered or dead-lettered). */
  const deliver = (message: JobMessage, attempt: number) => consumer.deliver(message, { attempt, heartbeat });

  /** Delivers the message until it is acked or dead-lettered, as the JetStream consumer does. */
  async function drive(message: JobMessage): Promise<'acked' | 'dead-lettered'> {
    for (let attempt = 1; ; attempt++) {
      try {
        await deliver(message, attempt);
        return 'acked';
      } catch (error) {
        if (attempt >= consumer.maxDeliver) {
          const reason = (error as Error).message;
          await consumer.deadLetter({
            stream: 'S',
            subject: 's',
            payload: message,
            attempts: attempt,
            error: reason,
            at: new Date().toISOString(),
          });
          return 'dead-lettered';
        }
      }
    }
  }

  async function submitted(payload: Record<string, unknown> = { n: 1 }) {
    const job = await service.submit('t1', TEST_JOB, payload, { userId: 'u1', idpId: 'idp1' });
    return { job, message: published[published.length - 1].message };
  }

  describe('submission', () => {
    it('stores the job queued, with no attempt yet and the progress unit of its handler, and publishes it once under its id', async () => {
      handlerOf(async () => ({}), 'bytes');
      const { job, message } = await submitted({ refId: 'r1' });
      expect(jobs.record(job.jobId)).toMatchObject({
        status: 'queued',
        attempts: 0,
        run: 0,
        terminateRequested: false,
        payload: { refId: 'r1' },
        progress: { done: 0, total: 0, percent: 0, unit: 'bytes' },
        submittedBy: { userId: 'u1', idpId: 'idp1' },
      });
      expect(published).toEqual([{ message: { tenantId: 't1', jobId: job.jobId, run: 0 }, workId: job.jobId }]);
      expect(message.jobId).toBe(job.jobId);
    });

    it('fails the job and answers 503 JOB_QUEUE_UNAVAILABLE when it cannot be queued', async () => {
      handlerOf(async () => ({}));
      enqueue.mockRejectedValueOnce(new Error('no NATS'));
      const error = await service.submit('t1', TEST_JOB, {}).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'JOB_QUEUE_UNAVAILABLE' });
      expect((error as { getStatus(): number }).getStatus()).toBe(503);
      expect(jobs.docs[0]).toMatchObject({ status: 'failed', error: 'the job queue is unavailable' });
    });

    it('runs each attempt of the handler three times at most, and dead-letters on one more delivery only', () => {
      expect(JOBS_MAX_DELIVER).toBe(3);
      expect(consumer.maxDeliver).toBe(JOBS_MAX_DELIVER + 1);
    });
  });

  describe('outcome', () => {
    it('ends succeeded with the handler result, progress at 100%, one attempt and an end time', async () => {
      const handler = handlerOf(async () => ({ rowsWritten: 3 }));
      const { job, message } = await submitted();
      expect(await drive(message)).toBe('acked');
      expect(jobs.record(job.jobId)).toMatchObject({
        status: 'succeeded',
        result: { rowsWritten: 3 },
        attempts: 1,
        progress: { percent: 100 },
      });
      expect(jobs.record(job.jobId).finishedAt).toBeInstanceOf(Date);
      expect(jobs.record(job.jobId).startedAt).toBeInstanceOf(Date);
      expect(handler.run).toHaveBeenCalledTimes(1);
      expect(metrics.jobFinished).toHaveBeenCalledWith('test.job', 'succeeded', expect.any(Number));
    });

    it('ends completed_with_errors, never succeeded, when the handler answers CompletedWithErrors', async () => {
      handlerOf(async () => new CompletedWithErrors({ rowsRejected: 2 }));
      const { job, message } = await submitted();
      expect(await drive(message)).toBe('acked');
      expect(jobs.record(job.jobId)).toMatchObject({
        status: 'completed_with_errors',
        result: { rowsRejected: 2 },
        progress: { percent: 100 },
      });
    });

    it('fails at once on a PermanentJobError: no retry, its reason and details kept, onFailed called once', async () => {
      const handler = handlerOf(async () => {
        throw new PermanentJobError('not a zip', { errors: [{ file: 'a.zip', line: 0, reason: 'not a zip' }] });
      });
      const { job, message } = await submitted();
      expect(await drive(message)).toBe('acked');
      expect(handler.run).toHaveBeenCalledTimes(1);
      expect(jobs.record(job.jobId)).toMatchObject({
        status: 'failed',
        error: 'not a zip',
        result: { errors: [{ file: 'a.zip', line: 0, reason: 'not a zip' }] },
        attempts: 1,
      });
      expect(jobs.record(job.jobId).progress.percent).toBe(0);
      expect(handler.onFailed).toHaveBeenCalledTimes(1);
      expect(handler.onFailed).toHaveBeenCalledWith({ tenantId: 't1', jobId: job.jobId, payload: { n: 1 } }, 'not a zip');
      expect(handler.onTerminated).not.toHaveBeenCalled();
    });

    it('fails a job whose type has no handler, without running anything', async () => {
      handlerOf(async () => ({}));
      const job = await service.submit('t1', 'unknown.type' as JobType, {});
      expect(await drive(published[0].message)).toBe('acked');
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'failed', error: 'no handler for job type unknown.type' });
    });
  });

  describe('retries', () => {
    it('puts a job whose attempt threw back to queued with the error, and redelivers it: the next attempt can succeed', async () => {
      const whileRunning: unknown[] = [];
      const handler = handlerOf(async (context: JobContext) => {
        whileRunning.push(structuredClone(jobs.record(context.jobId)));
        if (context.attempt === 1) throw new Error('database hiccup');
        return { attempt: context.attempt };
      });
      const { job, message } = await submitted();
      await expect(deliver(message, 1)).rejects.toThrow('database hiccup');
      expect(whileRunning[0]).toMatchObject({ status: 'running', attempts: 1 });
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'queued', error: 'database hiccup', attempts: 1 });
      await deliver(message, 2);
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'succeeded', result: { attempt: 2 }, attempts: 2 });
      expect(jobs.record(job.jobId).error).toBeUndefined();
      expect(handler.run).toHaveBeenCalledTimes(2);
      expect(handler.onFailed).not.toHaveBeenCalled();
    });

    it('fails a job whose three attempts all threw, with the last reason, calling onFailed once (dead letter)', async () => {
      let calls = 0;
      const handler = handlerOf(async () => {
        calls++;
        throw new Error(`attempt ${calls} broke`);
      });
      const { job, message } = await submitted();
      expect(await drive(message)).toBe('dead-lettered');
      expect(handler.run).toHaveBeenCalledTimes(JOBS_MAX_DELIVER);
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'failed', error: 'attempt 3 broke', attempts: 3 });
      expect(jobs.record(job.jobId).finishedAt).toBeInstanceOf(Date);
      expect(handler.onFailed).toHaveBeenCalledTimes(1);
      expect(handler.onFailed).toHaveBeenCalledWith({ tenantId: 't1', jobId: job.jobId, payload: { n: 1 } }, 'attempt 3 broke');
    });

    it('keeps the last attempt running (not queued) until the dead letter marks it failed', async () => {
      handlerOf(async () => {
        throw new Error('broke');
      });
      const { job, message } = await submitted();
      await expect(deliver(message, JOBS_MAX_DELIVER)).rejects.toThrow('broke');
      expect(jobs.record(job.jobId).status).toBe('running');
    });

    it('fails a job whose last attempt crashed (never acked): the extra delivery dead-letters without running the handler', async () => {
      const handler = handlerOf(async () => ({}));
      const { job, message } = await submitted();
      // three attempts that crashed: the process died, the record says running
      await jobs.updateOne('t1', { jobId: job.jobId }, { $set: { status: 'running', attempts: 3 } });
      await expect(deliver(message, JOBS_MAX_DELIVER + 1)).rejects.toThrow(`interrupted ${JOBS_MAX_DELIVER} times`);
      expect(handler.run).not.toHaveBeenCalled();
      await consumer.deadLetter({ stream: 'S', subject: 's', payload: message, attempts: 4, error: 'interrupted 3 times', at: '' });
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'failed', error: 'interrupted 3 times' });
      expect(handler.onFailed).toHaveBeenCalledTimes(1);
    });

    it('passes the attempt number to the handler', async () => {
      const attempts: number[] = [];
      handlerOf(async (context) => {
        attempts.push(context.attempt);
        if (context.attempt < 3) throw new Error('again');
        return {};
      });
      const { message } = await submitted();
      expect(await drive(message)).toBe('acked');
      expect(attempts).toEqual([1, 2, 3]);
    });

    it('ignores a redelivery of a job that already ended (acked late), running nothing and changing nothing', async () => {
      const handler = handlerOf(async () => ({ ok: true }));
      const { job, message } = await submitted();
      await deliver(message, 1);
      const before = structuredClone(jobs.record(job.jobId));
      await deliver(message, 2);
      expect(handler.run).toHaveBeenCalledTimes(1);
      expect(jobs.record(job.jobId)).toEqual(before);
    });

    it('ignores a dead letter of a job that already ended', async () => {
      const handler = handlerOf(async () => ({ ok: true }));
      const { job, message } = await submitted();
      await deliver(message, 1);
      await consumer.deadLetter({ stream: 'S', subject: 's', payload: message, attempts: 4, error: 'late', at: '' });
      expect(jobs.record(job.jobId).status).toBe('succeeded');
      expect(handler.onFailed).not.toHaveBeenCalled();
    });
  });

  describe('faults', () => {
    it('reports a transient fault as what it is, retries it, and waits four times longer before each later retry', async () => {
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
      handlerOf(async (context) => {
        if (context.attempt === 1) throw new TransientFault('object store', refused);
        return {};
      });
      const { job, message } = await submitted();
      await expect(deliver(message, 1)).rejects.toThrow('object store unreachable: connect ECONNREFUSED 127.0.0.1:9000');
      expect(jobs.record(job.jobId)).toMatchObject({
        status: 'queued',
        error: 'object store unreachable: connect ECONNREFUSED 127.0.0.1:9000',
      });
      await deliver(message, 2);
      expect(jobs.record(job.jobId).status).toBe('succeeded');
      const delays = new JobQueue({} as never, { JOBS_RETRY_DELAY_MS: 2000 } as CostassetEnvironment, metrics as unknown as Metrics);
      const retryDelay = (delays as unknown as { queue: WorkQueue<JobMessage> }).queue.definition.retryDelayMs as (n: number) => number;
      expect([1, 2].map(retryDelay)).toEqual([2000, 8000]);
    });

    it('names the database when the job record itself cannot be read, before any handler runs', async () => {
      handlerOf(async () => ({}));
      const { message } = await submitted();
      jest
        .spyOn(jobs, 'findOne')
        .mockRejectedValueOnce(Object.assign(new Error('connection 8 to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' }));
      await expect(deliver(message, 1)).rejects.toThrow('database unreachable: connection 8 to 127.0.0.1:27017 closed');
    });

    it('names the database when a driver error shows it was unreachable', async () => {
      handlerOf(async () => {
        throw Object.assign(new Error('Server selection timed out after 30000 ms'), { name: 'MongoServerSelectionError' });
      });
      const { job, message } = await submitted();
      await expect(deliver(message, 1)).rejects.toThrow('database unreachable: Server selection timed out');
      expect(jobs.record(job.jobId).error).toBe('database unreachable: Server selection timed out after 30000 ms');
    });
  });

  describe('jobs without a worker', () => {
    const ago = (ms: number) => new Date(Date.now() - ms);

    async function abandoned(heartbeatAt: Date) {
      const { job, message } = await submitted();
      await jobs.updateOne('t1', { jobId: job.jobId }, { $set: { status: 'running', attempts: 1, heartbeatAt } });
      return { job, message };
    }

    it('ends a running job whose heartbeat is older than the deadline failed with the cause, and runs its clean-up once', async () => {
      const handler = handlerOf(async () => ({}));
      const { job } = await abandoned(ago(HEARTBEAT_DEADLINE_MS + 1000));
      await reaper.sweep();
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^its worker stopped reporting at /) });
      expect(jobs.record(job.jobId).cleanupPending).toBeUndefined();
      expect(handler.onFailed).toHaveBeenCalledTimes(1);
      await reaper.sweep();
      expect(handler.onFailed).toHaveBeenCalledTimes(1);
    });

    it('leaves a running job with a recent heartbeat alone', async () => {
      const handler = handlerOf(async () => ({}));
      const { job } = await abandoned(ago(HEARTBEAT_DEADLINE_MS / 2));
      await reaper.sweep();
      expect(jobs.record(job.jobId).status).toBe('running');
      expect(handler.onFailed).not.toHaveBeenCalled();
    });

    it('runs a clean-up that failed again at a later sweep, until it succeeds', async () => {
      const handler = handlerOf(async () => ({}));
      handler.onFailed.mockRejectedValueOnce(new Error('database unreachable'));
      const { job } = await abandoned(ago(HEARTBEAT_DEADLINE_MS + 1000));
      await reaper.sweep();
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'failed', cleanupPending: true });
      await jobs.updateOne('t1', { jobId: job.jobId }, { $set: { finishedAt: ago(60_000) } });
      await reaper.sweep();
      expect(handler.onFailed).toHaveBeenCalledTimes(2);
      expect(jobs.record(job.jobId).cleanupPending).toBeUndefined();
    });

    it('stops an attempt whose job was ended elsewhere at its next progress report, cleans up again, no retry', async () => {
      let reachedAfterProgress = false;
      const handler = handlerOf(async (context) => {
        await jobs.updateOne('t1', { jobId: context.jobId }, { $set: { heartbeatAt: ago(HEARTBEAT_DEADLINE_MS + 1000) } });
        await reaper.sweep();
        await context.progress(1, 10);
        reachedAfterProgress = true;
        return {};
      });
      const { job, message } = await submitted();
      expect(await drive(message)).toBe('acked');
      expect(reachedAfterProgress).toBe(false);
      expect(handler.run).toHaveBeenCalledTimes(1);
      expect(jobs.record(job.jobId).status).toBe('failed');
      expect(handler.onFailed).toHaveBeenCalledTimes(2);
    });

    it('terminates a running job without a worker at once, running its clean-up', async () => {
      const handler = handlerOf(async () => ({}));
      const { job } = await abandoned(ago(HEARTBEAT_DEADLINE_MS + 1000));
      expect(await service.terminate('t1', job.jobId)).toMatchObject({ status: 'terminated' });
      expect(handler.onTerminated).toHaveBeenCalledTimes(1);
      expect(jobs.record(job.jobId).cleanupPending).toBeUndefined();
    });

    it('ends a job whose dead letter could not be written once the database answers again', async () => {
      const handler = handlerOf(async () => ({}));
      const { job, message } = await submitted();
      await jobs.updateOne('t1', { jobId: job.jobId }, { $set: { status: 'running', attempts: 3 } });
      const findOne = jest.spyOn(jobs, 'findOne').mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:27017'));
      const letter = { stream: 'S', subject: 's', payload: message, attempts: 4, error: 'interrupted 3 times', at: '' };
      await expect(consumer.deadLetter(letter)).rejects.toThrow('ECONNREFUSED');
      expect(jobs.record(job.jobId).status).toBe('running');
      findOne.mockRestore();
      await consumer.deadLetter(letter);
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'failed', error: 'interrupted 3 times' });
      expect(handler.onFailed).toHaveBeenCalledTimes(1);
    });
  });

  describe('progress', () => {
    it('records done of total with a percentage to one decimal, extends the delivery each time, and keeps the rows read', async () => {
      const seen: unknown[] = [];
      handlerOf(async (context) => {
        await context.progress(1, 3, { rows: 10 });
        seen.push(structuredClone(jobs.record(context.jobId).progress));
        await context.progress(2, 3);
        seen.push(structuredClone(jobs.record(context.jobId).progress));
        return {};
      }, 'bytes');
      heartbeat.mockClear();
      const { message } = await submitted();
      await deliver(message, 1);
      expect(seen).toEqual([
        { done: 1, total: 3, percent: 33.3, unit: 'bytes', rows: 10 },
        { done: 2, total: 3, percent: 66.7, unit: 'bytes', rows: 10 },
      ]);
      expect(heartbeat).toHaveBeenCalledTimes(2);
    });

    it('never reports done beyond total nor more than 100%, and 0% while the total is unknown', async () => {
      const seen: unknown[] = [];
      handlerOf(async (context) => {
        await context.progress(120, 100);
        seen.push(structuredClone(jobs.record(context.jobId).progress));
        await context.progress(7, 0);
        seen.push(structuredClone(jobs.record(context.jobId).progress));
        return {};
      });
      const { message } = await submitted();
      await deliver(message, 1);
      expect(seen).toEqual([
        { done: 100, total: 100, percent: 100, unit: 'rows' },
        { done: 7, total: 0, percent: 0, unit: 'rows' },
      ]);
    });
  });

  describe('termination', () => {
    it('ends a queued job at once, calls onTerminated, and its later delivery runs nothing', async () => {
      const handler = handlerOf(async () => ({}));
      const { job, message } = await submitted();
      const answered = await service.terminate('t1', job.jobId);
      expect(answered).toMatchObject({ status: 'terminated', terminateRequested: true });
      expect(jobs.record(job.jobId).finishedAt).toBeInstanceOf(Date);
      expect(handler.onTerminated).toHaveBeenCalledTimes(1);
      expect(await drive(message)).toBe('acked');
      expect(handler.run).not.toHaveBeenCalled();
      expect(handler.onTerminated).toHaveBeenCalledTimes(1);
    });

    it('stops a running job at its next progress report: terminated, onTerminated called, no retry, onFailed not called', async () => {
      let reachedAfterProgress = false;
      const handler = handlerOf(async (context) => {
        await context.progress(1, 10);
        expect(await service.terminate('t1', context.jobId)).toMatchObject({ status: 'running', terminateRequested: true });
        await context.progress(2, 10);
        reachedAfterProgress = true;
        return {};
      });
      const { job, message } = await submitted();
      expect(await drive(message)).toBe('acked');
      expect(reachedAfterProgress).toBe(false);
      expect(handler.run).toHaveBeenCalledTimes(1);
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'terminated' });
      expect(jobs.record(job.jobId).finishedAt).toBeInstanceOf(Date);
      expect(handler.onTerminated).toHaveBeenCalledTimes(1);
      expect(handler.onFailed).not.toHaveBeenCalled();
    });

    it('terminates a job asked to stop while waiting for its redelivery, without running it again', async () => {
      let calls = 0;
      const handler = handlerOf(async () => {
        calls++;
        throw new Error('transient');
      });
      const { job, message } = await submitted();
      await expect(deliver(message, 1)).rejects.toThrow('transient');
      // queued again between attempts: terminate ends it at once
      await service.terminate('t1', job.jobId);
      expect(await drive(message)).toBe('acked');
      expect(calls).toBe(1);
      expect(jobs.record(job.jobId).status).toBe('terminated');
      expect(handler.onTerminated).toHaveBeenCalledTimes(1);
    });

    it('refuses (null) to terminate a job that already ended', async () => {
      handlerOf(async () => ({}));
      const { job, message } = await submitted();
      await deliver(message, 1);
      expect(await service.terminate('t1', job.jobId)).toBeNull();
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'succeeded', terminateRequested: false });
    });

    it('keeps tenants apart: another tenant cannot terminate the job', async () => {
      handlerOf(async () => ({}));
      const { job } = await submitted();
      expect(await service.terminate('t2', job.jobId)).toBeNull();
      expect(jobs.record(job.jobId).status).toBe('queued');
    });
  });

  describe('rerun', () => {
    it('re-runs a failed job as a new run: queued, progress and error reset, published under a new message id', async () => {
      let fail = true;
      handlerOf(async (context) => {
        await context.progress(5, 10);
        if (fail) throw new PermanentJobError('bad input');
        return { ok: true };
      });
      const { job, message } = await submitted();
      await drive(message);
      expect(jobs.record(job.jobId).status).toBe('failed');
      fail = false;
      const rerun = await service.rerun('t1', job.jobId);
      expect(rerun).toMatchObject({ status: 'queued', run: 1, progress: { done: 0, total: 0, percent: 0 } });
      expect(rerun?.error).toBeUndefined();
      expect(rerun?.result).toBeUndefined();
      expect(published[published.length - 1]).toEqual({
        message: { tenantId: 't1', jobId: job.jobId, run: 1 },
        workId: `${job.jobId}.run1`,
      });
      expect(await drive(published[published.length - 1].message)).toBe('acked');
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'succeeded', run: 1, attempts: 2 });
    });

    it('re-runs only failed or terminated jobs', async () => {
      handlerOf(async () => ({}));
      const { job, message } = await submitted();
      expect(await service.rerun('t1', job.jobId)).toBeNull();
      await deliver(message, 1);
      expect(await service.rerun('t1', job.jobId)).toBeNull();
      expect(published).toHaveLength(1);
    });

    it('ignores deliveries and dead letters of an earlier run', async () => {
      const handler = handlerOf(async () => {
        throw new PermanentJobError('bad');
      });
      const { job, message } = await submitted();
      await drive(message);
      await service.rerun('t1', job.jobId);
      handler.run.mockClear();
      await deliver(message, 2);
      expect(handler.run).not.toHaveBeenCalled();
      await consumer.deadLetter({ stream: 'S', subject: 's', payload: message, attempts: 4, error: 'old run', at: '' });
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'queued', run: 1 });
    });
  });

  describe('child jobs', () => {
    const PART = 'test.part' as JobType;

    function parts(run: JobHandler['run']) {
      const part = { progressUnit: 'bytes' as const, run: jest.fn(run), onFailed: jest.fn(async () => undefined) };
      registered.set(PART, part);
      return part;
    }

    /** A parent that spreads `n` parts and, resumed, answers what its parts handed over. */
    function parent(n: number) {
      return handlerOf(async (context: JobContext) =>
        context.children
          ? { handed: context.children.map((child) => child.handoff.value), results: context.children.map((child) => child.result.part) }
          : new AwaitChildren(
              PART,
              Array.from({ length: n }, (_unused, index) => ({ index })),
            ),
      );
    }

    const childMessages = () => published.filter(({ message }) => jobs.record(message.jobId).parentJobId !== undefined);

    it('waits without a worker while its parts run, and resumes once, with their outcomes in order, after the last one', async () => {
      const handler = parent(3);
      parts(
        async (context: JobContext) => new ChildResult({ part: context.payload.index }, { value: `v${String(context.payload.index)}` }),
      );
      const { job, message } = await submitted();
      expect(await drive(message)).toBe('acked');
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'running', waiting: true });
      const spawned = childMessages();
      expect(spawned).toHaveLength(3);
      expect(spawned.map(({ message: child }) => jobs.record(child.jobId))).toEqual([
        expect.objectContaining({ parentJobId: job.jobId, parentRun: 0, childIndex: 0, submittedBy: { userId: 'u1', idpId: 'idp1' } }),
        expect.objectContaining({ childIndex: 1 }),
        expect.objectContaining({ childIndex: 2 }),
      ]);
      // the parent's message again (a crash before its ack): queued parts published again under their ids (stored
      // once by the queue), none created twice, nothing resumed
      await drive(message);
      expect(new Set(childMessages().map(({ workId }) => workId)).size).toBe(3);
      expect(jobs.docs.filter((doc) => doc.parentJobId === job.jobId)).toHaveLength(3);
      expect(handler.run).toHaveBeenCalledTimes(1);
      for (const { message: child } of [...spawned].reverse()) await drive(child);
      const resumes = published.filter(({ workId }) => workId === `${job.jobId}.run0.resume`);
      expect(resumes).toHaveLength(1);
      const finished = await service.get('t1', spawned[0].message.jobId);
      expect(finished).toMatchObject({ status: 'succeeded', result: { part: 0 }, handoff: { value: 'v0' } });
      expect(toJobDto(finished as never)).toEqual(expect.not.objectContaining({ handoff: expect.anything() }));
      expect(toJobDto(finished as never)).toMatchObject({ parentJobId: job.jobId });
      await drive(resumes[0].message);
      expect(jobs.record(job.jobId)).toMatchObject({
        status: 'succeeded',
        waiting: false,
        result: { handed: ['v0', 'v1', 'v2'], results: [0, 1, 2] },
        attempts: 1,
      });
      expect(handler.run).toHaveBeenCalledTimes(2);
    });

    it('sums its parts’ progress while it waits', async () => {
      handlerOf(async (context: JobContext) => {
        await context.progress(0, 300);
        return new AwaitChildren(PART, [{ index: 0 }, { index: 1 }]);
      });
      parts(async () => ({}));
      const { job, message } = await submitted();
      await drive(message);
      const [first, second] = childMessages().map(({ message: child }) => child.jobId);
      jobs.record(first).progress = { done: 100, total: 100, percent: 100, unit: 'bytes', rows: 10 };
      jobs.record(second).progress = { done: 50, total: 200, percent: 25, unit: 'bytes', rows: 5 };
      expect((await service.get('t1', job.jobId))?.progress).toMatchObject({ done: 150, total: 300, percent: 50, rows: 15 });
    });

    it('fails with a part that fails for good, with its error; the other parts are asked to stop and the clean-ups run', async () => {
      const handler = parent(2);
      const part = parts(async (context: JobContext) => {
        if (context.payload.index === 1) throw new PermanentJobError('part.csv missing required column(s): BilledCost', { rowsRead: 0 });
        return {};
      });
      const { job, message } = await submitted();
      await drive(message);
      const [first, second] = childMessages().map(({ message: child }) => child);
      await drive(second);
      expect(jobs.record(job.jobId)).toMatchObject({
        status: 'failed',
        error: 'part.csv missing required column(s): BilledCost',
        result: { rowsRead: 0 },
      });
      expect(part.onFailed).toHaveBeenCalledTimes(1);
      expect(handler.onFailed).toHaveBeenCalledWith(
        expect.objectContaining({ jobId: job.jobId }),
        'part.csv missing required column(s): BilledCost',
      );
      expect(jobs.record(first.jobId)).toMatchObject({ terminateRequested: true });
      await drive(first);
      expect(jobs.record(first.jobId)).toMatchObject({ status: 'terminated' });
      expect(part.run).toHaveBeenCalledTimes(1);
      expect(published.some(({ workId }) => workId.endsWith('.resume'))).toBe(false);
    });

    it('is terminated at once while it waits, and stops its parts', async () => {
      const handler = parent(2);
      parts(async () => ({}));
      const { job, message } = await submitted();
      await drive(message);
      expect(await service.terminate('t1', job.jobId)).toMatchObject({ status: 'terminated' });
      expect(handler.onTerminated).toHaveBeenCalledTimes(1);
      expect(childMessages().map(({ message: child }) => jobs.record(child.jobId).terminateRequested)).toEqual([true, true]);
    });

    it('is never reaped while it waits, and is resumed by the reaper when the instance that ended its last part could not', async () => {
      parent(1);
      parts(async () => ({}));
      const { job, message } = await submitted();
      await drive(message);
      enqueue.mockRejectedValueOnce(new Error('NATS gone'));
      await drive(childMessages()[0].message);
      expect(published.some(({ workId }) => workId.endsWith('.resume'))).toBe(false);
      jobs.record(job.jobId).heartbeatAt = new Date(Date.now() - 2 * HEARTBEAT_DEADLINE_MS);
      await reaper.sweep();
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'running', waiting: true });
      const resume = published.find(({ workId }) => workId === `${job.jobId}.run0.resume`);
      expect(resume).toBeDefined();
      await drive((resume as { message: JobMessage }).message);
      expect(jobs.record(job.jobId)).toMatchObject({ status: 'succeeded' });
    });
  });

  describe('access', () => {
    it('lets the submitter and System Admins follow a job, nobody else', () => {
      const job = { submittedBy: { userId: 'u1', idpId: 'idp1' } };
      expect(service.mayAccess(principal(), job)).toBe(true);
      expect(service.mayAccess(principal({ userId: 'u2' }), job)).toBe(false);
      expect(service.mayAccess(principal({ idpId: 'other' }), job)).toBe(false);
      expect(service.mayAccess(principal({ userId: 'admin', isSystemAdmin: true }), job)).toBe(true);
      expect(service.mayAccess(principal(), {})).toBe(false);
    });
  });
});
