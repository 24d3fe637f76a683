import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { IsMongoId, IsString, MaxLength } from 'class-validator';
import { DeadLetterHandler, NatsConnectionProvider, WorkHandler, WorkQueue } from '@lib/messaging';
import { CostassetEnvironment } from '../costasset.environment';

export const DELIVERY_STREAM = 'COSTASSET_NOTIFICATIONS';
export const DELIVERY_SUBJECT = 'costasset.notifications.deliveries';
const SHUTDOWN_GRACE_MS = 3000;

/** What travels on the delivery queue: only ids; the delivery record is the truth. Validated on delivery. */
export class DeliveryMessage {
  @IsString()
  @MaxLength(512)
  tenantId: string;

  @IsMongoId()
  deliveryId: string;
}

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` failed: `base`, then four times
 * longer each time, at most `max`. After the last attempt there is nothing to wait for (the next
 * delivery only dead-letters).
 */
export function retryDelay(attempt: number, settings: { base: number; max: number; attempts: number }): number {
  if (attempt >= settings.attempts) return 0;
  return Math.min(settings.max, settings.base * 4 ** (attempt - 1));
}

/**
 * The JetStream work queue of notification deliveries, shared by every instance: a delivery is
 * published with its id as message id (queued once), retried with backoff, and dead-lettered
 * after NOTIFICATIONS_MAX_ATTEMPTS attempts, plus one delivery that only dead-letters, so that a
 * delivery whose last attempt crashed still ends `dead_lettered` (as jobs do).
 */
@Injectable()
export class DeliveryQueue implements OnApplicationShutdown {
  private readonly logger = new Logger('NotificationDeliveries');
  private readonly queue: WorkQueue<DeliveryMessage>;
  private ensured?: Promise<void>;
  private stopped = false;

  constructor(nats: NatsConnectionProvider, env: CostassetEnvironment) {
    const attempts = env.NOTIFICATIONS_MAX_ATTEMPTS;
    const backoff = { base: env.NOTIFICATIONS_RETRY_DELAY_MS, max: env.NOTIFICATIONS_RETRY_MAX_DELAY_MS, attempts };
    this.queue = new WorkQueue<DeliveryMessage>(nats, {
      payload: DeliveryMessage,
      stream: DELIVERY_STREAM,
      subject: DELIVERY_SUBJECT,
      durable: 'costasset-notifications',
      maxDeliver: attempts + 1,
      // an attempt ends within its own time limit; the ack wait only catches a crashed instance
      ackWaitMs: env.NOTIFICATIONS_TIMEOUT_MS * 2 + 30_000,
      retryDelayMs: (attempt) => retryDelay(attempt, backoff),
    });
  }

  async enqueue(message: DeliveryMessage): Promise<void> {
    await this.ensure();
    await this.queue.enqueue(message, message.deliveryId);
  }

  /** Starts consuming in the background (retrying until the queue can be set up). */
  consume(handler: WorkHandler<DeliveryMessage>, onDeadLetter: DeadLetterHandler<DeliveryMessage>): void {
    void (async () => {
      while (!this.stopped) {
        try {
          await this.ensure();
          this.queue.start(handler, onDeadLetter);
          return;
        } catch (error) {
          this.logger.warn({ err: (error as Error).message }, 'notification delivery queue not ready; retrying');
          await new Promise((resolve) => setTimeout(resolve, 1000).unref());
        }
      }
    })();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await Promise.race([this.queue.stop(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
  }

  private ensure(): Promise<void> {
    this.ensured ??= this.queue.ensure().catch((error: unknown) => {
      this.ensured = undefined;
      throw error;
    });
    return this.ensured;
  }
}
