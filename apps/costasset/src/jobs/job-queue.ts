import { Injectable } from '@nestjs/common';
import { DeadLetterHandler, NatsConnectionProvider, WorkHandler, WorkQueue } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { CostassetEnvironment } from '../costasset.environment';
import { JobMessage } from './job-message';

export const JOBS_STREAM = 'COSTASSET_JOBS';
export const JOBS_SUBJECT = 'costasset.jobs';
/** Attempts that run the handler. */
export const JOBS_MAX_DELIVER = 3;
/** Each retry waits this many times longer than the one before. */
const BACKOFF_FACTOR = 4;

/** The one JetStream work queue every instance takes jobs from. */
@Injectable()
export class JobQueue {
  private readonly queue: WorkQueue<JobMessage>;
  private ensured?: Promise<void>;

  constructor(nats: NatsConnectionProvider, env: CostassetEnvironment, metrics: Metrics) {
    this.queue = new WorkQueue<JobMessage>(nats, {
      payload: JobMessage,
      stream: JOBS_STREAM,
      subject: JOBS_SUBJECT,
      durable: 'costasset-jobs',
      // one delivery beyond the attempts: it only dead-letters, so that a job whose last attempt
      // crashed (no ack, no error) still ends `failed` instead of staying `running`
      maxDeliver: JOBS_MAX_DELIVER + 1,
      ackWaitMs: env.JOBS_ACK_WAIT_MS,
      retryDelayMs: (attempt) => env.JOBS_RETRY_DELAY_MS * BACKOFF_FACTOR ** (attempt - 1),
    });
    metrics.watchQueueDepth(JOBS_STREAM, () => this.queue.depth());
  }

  ensure(): Promise<void> {
    this.ensured ??= this.queue.ensure().catch((error: unknown) => {
      this.ensured = undefined;
      throw error;
    });
    return this.ensured;
  }

  /** Run 0 is published under the job id, a retry under `<jobId>.run<n>`: each stored once. */
  async enqueue(message: JobMessage): Promise<void> {
    await this.ensure();
    await this.queue.enqueue(message, message.run === 0 ? message.jobId : `${message.jobId}.run${message.run}`);
  }

  /** The run's resumption once its children are done (`<jobId>.run<n>.resume`): stored once, however many children ask. */
  async enqueueResume(message: JobMessage): Promise<void> {
    await this.ensure();
    await this.queue.enqueue(message, `${message.jobId}.run${message.run}.resume`);
  }

  start(handler: WorkHandler<JobMessage>, onDeadLetter: DeadLetterHandler<JobMessage>): void {
    this.queue.start(handler, onDeadLetter);
  }

  stop(): Promise<void> {
    return this.queue.stop();
  }
}
