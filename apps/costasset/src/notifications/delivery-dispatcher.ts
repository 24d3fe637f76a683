import { Injectable } from '@nestjs/common';
import { isDuplicateKey } from '@lib/core';
import { DeliveryQueue } from './delivery-queue';
import { NotificationDeliveryRepository } from './notifications.repositories';
import type { NotificationMessage, NotificationTopic } from './notifier';
import type { NotificationDelivery } from './schemas/notification-delivery.schema';

export type QueuedDelivery = NotificationDelivery & { _id: unknown };

/** Records a delivery (once per channel and idempotency key) and queues it. */
@Injectable()
export class DeliveryDispatcher {
  constructor(
    private readonly deliveries: NotificationDeliveryRepository,
    private readonly workQueue: DeliveryQueue,
  ) {}

  /**
   * The delivery, or null when one with this key was already recorded for the channel (by this or
   * another instance: the unique index decides). When it cannot be queued the record is removed
   * again, so that a later call with the same key can queue it, and the error is thrown.
   */
  async queue(
    tenantId: string,
    channelId: string,
    topic: NotificationTopic,
    message: NotificationMessage,
    idempotencyKey: string,
  ): Promise<QueuedDelivery | null> {
    let record: QueuedDelivery;
    try {
      record = await this.deliveries.create(tenantId, {
        channelId,
        idempotencyKey,
        topic,
        title: message.title,
        summary: message.summary,
        facts: message.facts.map(({ label, value }) => ({ label, value })),
        ...(message.link ? { link: message.link } : {}),
        data: message.data,
        status: 'queued',
        attempts: 0,
      });
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
    try {
      await this.workQueue.enqueue({ tenantId, deliveryId: String(record._id) });
    } catch (error) {
      await this.deliveries.deleteOne(tenantId, { _id: record._id });
      throw error;
    }
    return record;
  }
}
