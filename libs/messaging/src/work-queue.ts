import { Logger } from '@nestjs/common';
import {
  AckPolicy,
  ConsumerMessages,
  DeliverPolicy,
  JetStreamClient,
  JetStreamManager,
  JSONCodec,
  JsMsg,
  NatsConnection,
  NatsError,
  RetentionPolicy,
  StorageType,
} from 'nats';
import { NatsConnectionProvider } from './nats-connection';
import { decodePayload, InvalidPayloadError } from './payload';

const codec = JSONCodec();
const DEAD_LETTER_STREAM = 'DEAD_LETTERS';
const UNLIMITED_DELIVERIES = -1;
const DEAD_LETTER_RETRY_MS = 10_000;

export interface WorkQueueDefinition<T extends object> {
  /** The class each message is validated against when it is delivered. */
  payload: new () => T;
  /** JetStream stream name, e.g. `JOBS`. */
  stream: string;
  /** Subject the work is published on, e.g. `jobs.enrichment`. */
  subject: string;
  /** Durable consumer shared by every instance of the service. */
  durable: string;
  /** Deliveries before the work is dead-lettered. */
  maxDeliver: number;
  /** Delay before a dead letter whose handler failed (its store unreachable) is handed over again. */
  deadLetterRetryMs?: number;
  /** How long a delivery may run without a heartbeat before it is redelivered. */
  ackWaitMs: number;
  /** Delay before a failed attempt is redelivered: fixed, or by the attempt that failed (1 for the first: backoff). */
  retryDelayMs: number | ((attempt: number) => number);
}

export interface DeliveryContext {
  attempt: number;
  /** Extends the ack deadline while long work is running. */
  heartbeat(): void;
}

export interface DeadLetter<T> {
  stream: string;
  subject: string;
  payload: T;
  attempts: number;
  error: string;
  at: string;
}

export type WorkHandler<T> = (payload: T, delivery: DeliveryContext) => Promise<void>;
export type DeadLetterHandler<T> = (letter: DeadLetter<T>) => Promise<void>;

/**
 * A JetStream work queue: each message is delivered to one consumer instance, acked on success,
 * redelivered after a failure or a crash (no ack within `ackWaitMs`), and after `maxDeliver`
 * attempts handed to `onDeadLetter` and recorded in the DEAD_LETTERS stream. The message leaves
 * the queue only once `onDeadLetter` succeeded: JetStream's own delivery limit is off, so a
 * handler that cannot write its outcome (its database down) gets the letter again later instead
 * of the work being forgotten half done.
 * Publishing with a message id de-duplicates repeated submissions of the same work.
 */
/** JetStream's answer for a stream or consumer that does not exist (and only that). */
export function isJetStreamNotFound(error: unknown): boolean {
  return error instanceof NatsError && error.isJetStreamError() && error.jsError()?.code === 404;
}

export class WorkQueue<T extends object> {
  private readonly logger: Logger;
  private messages?: ConsumerMessages;
  private stopped = false;

  constructor(
    private readonly nats: NatsConnectionProvider,
    readonly definition: WorkQueueDefinition<T>,
  ) {
    this.logger = new Logger(`WorkQueue:${definition.stream}`);
  }

  private get stream(): string {
    return this.nats.streamName(this.definition.stream);
  }

  private get subject(): string {
    return this.nats.subject(this.definition.subject);
  }

  async ensure(): Promise<void> {
    const nc = await this.nats.get();
    const jsm = await nc.jetstreamManager();
    const { durable, ackWaitMs } = this.definition;
    const { stream, subject } = this;
    await this.ensureStream(jsm, stream, {
      subjects: [subject],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: 2 * 60 * 1_000_000_000,
    });
    await this.ensureStream(jsm, this.nats.streamName(DEAD_LETTER_STREAM), {
      subjects: [this.nats.subject('deadletter.>')],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: 30 * 24 * 3600 * 1_000_000_000,
    });
    const consumer = {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_deliver: UNLIMITED_DELIVERIES,
      ack_wait: ackWaitMs * 1_000_000,
      filter_subject: subject,
    };
    try {
      await jsm.consumers.info(stream, durable);
    } catch (error) {
      if (!isJetStreamNotFound(error)) throw error;
      await jsm.consumers.add(stream, consumer);
      return;
    }
    await jsm.consumers.update(stream, durable, { max_deliver: UNLIMITED_DELIVERIES, ack_wait: consumer.ack_wait });
  }

  /** Publishes work; the same `workId` within the de-duplication window is stored once. */
  async enqueue(payload: T, workId: string): Promise<{ duplicate: boolean }> {
    const js = await this.jetstream();
    const ack = await js.publish(this.subject, codec.encode(payload), { msgID: workId });
    return { duplicate: ack.duplicate };
  }

  /** Messages waiting (not yet delivered) and delivered but not yet acknowledged, as JetStream counts them. */
  async depth(): Promise<{ pending: number; inProgress: number }> {
    const nc = await this.nats.get();
    const info = await (await nc.jetstreamManager()).consumers.info(this.stream, this.definition.durable);
    return { pending: info.num_pending, inProgress: info.num_ack_pending };
  }

  /** Starts consuming in the background until `stop()`; survives NATS restarts. */
  start(handler: WorkHandler<T>, onDeadLetter: DeadLetterHandler<T>): void {
    void this.loop(handler, onDeadLetter);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
  }

  private async loop(handler: WorkHandler<T>, onDeadLetter: DeadLetterHandler<T>): Promise<void> {
    while (!this.stopped) {
      try {
        const js = await this.jetstream();
        const consumer = await js.consumers.get(this.stream, this.definition.durable);
        this.messages = await consumer.consume({ max_messages: 1 });
        for await (const msg of this.messages) {
          await this.deliver(msg, handler, onDeadLetter);
          if (this.stopped) break;
        }
      } catch (error) {
        if (!this.stopped) this.logger.warn({ err: error }, 'consumer interrupted; resuming');
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  private async deliver(msg: JsMsg, handler: WorkHandler<T>, onDeadLetter: DeadLetterHandler<T>): Promise<void> {
    let payload: T;
    try {
      payload = decodePayload(this.definition.payload, msg.data);
    } catch (error) {
      if (!(error instanceof InvalidPayloadError)) throw error;
      // no attempt can run it: taken off the queue at once instead of being redelivered
      this.logger.error({ subject: msg.subject, reason: error.message }, 'work dropped: its message breaks the contract');
      msg.term();
      return;
    }
    const attempt = msg.info.redeliveryCount;
    try {
      await handler(payload, { attempt, heartbeat: () => msg.working() });
      msg.ack();
    } catch (error) {
      const reason = (error as Error).message ?? String(error);
      if (attempt >= this.definition.maxDeliver) {
        const letter = {
          stream: this.stream,
          subject: msg.subject,
          payload,
          attempts: attempt,
          error: reason,
          at: new Date().toISOString(),
        };
        if (await this.deadLetter(letter, onDeadLetter)) msg.term();
        else msg.nak(this.definition.deadLetterRetryMs ?? DEAD_LETTER_RETRY_MS);
      } else {
        this.logger.warn({ attempt, err: error }, 'work failed; it will be retried');
        const { retryDelayMs } = this.definition;
        msg.nak(typeof retryDelayMs === 'function' ? retryDelayMs(attempt) : retryDelayMs);
      }
    }
  }

  /** Whether the letter was handled and recorded; if not, it is handed over again later. */
  private async deadLetter(letter: DeadLetter<T>, onDeadLetter: DeadLetterHandler<T>): Promise<boolean> {
    try {
      await onDeadLetter(letter);
      const js = await this.jetstream();
      await js.publish(this.nats.subject(`deadletter.${this.definition.stream.toLowerCase()}`), codec.encode(letter));
      return true;
    } catch (error) {
      this.logger.error({ err: error }, 'dead letter not handled yet; it will be handed over again');
      return false;
    }
  }

  private async ensureStream(jsm: JetStreamManager, name: string, config: Record<string, unknown>): Promise<void> {
    try {
      await jsm.streams.info(name);
    } catch (error) {
      if (!isJetStreamNotFound(error)) throw error;
      await jsm.streams.add({ name, ...config });
    }
  }

  private async jetstream(): Promise<JetStreamClient> {
    const nc: NatsConnection = await this.nats.get();
    return nc.jetstream();
  }
}
