import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SealedSecretError, SecretSealer } from '@lib/config';
import type { DeadLetter, DeliveryContext } from '@lib/messaging';
import { CostassetEnvironment } from '../costasset.environment';
import { DeliveryError } from './channels/delivery-error';
import { EmailSender } from './channels/email-sender';
import { Envelope, renderEmail, webhookBody } from './channels/render';
import { postWebhook } from './channels/webhook-sender';
import { DeliveryMessage, DeliveryQueue } from './delivery-queue';
import { NotificationChannelRepository, NotificationDeliveryRepository } from './notifications.repositories';
import { NotificationChannel } from './schemas/notification-channel.schema';
import { FINAL_DELIVERY_STATUSES, NotificationDelivery } from './schemas/notification-delivery.schema';

/** The sealing contexts of a channel's URL and secret: a sealed value moved to another channel or tenant does not open. */
export const urlContext = (tenantId: string, channelId: string) => `${tenantId}:notification-channel:${channelId}:url`;
export const secretContext = (tenantId: string, channelId: string) => `${tenantId}:notification-channel:${channelId}:secret`;

const withDeadline = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeliveryError(`no answer within ${ms} ms`, false)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
};

/**
 * Runs delivery attempts from the queue: renders the message for its channel and sends it once.
 * Success → `sent`; a permanent error → `failed` at once; a transient one → retried with backoff
 * by the queue, then `dead_lettered` with the last error after NOTIFICATIONS_MAX_ATTEMPTS.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NotificationDeliveries');
  private email?: EmailSender;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly deliveries: NotificationDeliveryRepository,
    private readonly channels: NotificationChannelRepository,
    private readonly sealer: SecretSealer,
    private readonly env: CostassetEnvironment,
  ) {}

  onApplicationBootstrap(): void {
    this.queue.consume(
      (message, delivery) => this.attempt(message, delivery),
      (letter) => this.deadLettered(letter),
    );
  }

  onApplicationShutdown(): void {
    this.email?.close();
  }

  /** One delivery of the queue's message: resolves to ack it, throws to have it retried (or dead-lettered). */
  async attempt({ tenantId, deliveryId }: DeliveryMessage, delivery: Pick<DeliveryContext, 'attempt'>): Promise<void> {
    const record = await this.deliveries.findById(tenantId, deliveryId);
    if (!record || FINAL_DELIVERY_STATUSES.includes(record.status)) return;
    const maxAttempts = this.env.NOTIFICATIONS_MAX_ATTEMPTS;
    // the queue's extra delivery after the last attempt: it only dead-letters
    if (delivery.attempt > maxAttempts) throw new Error(record.lastError ?? `interrupted ${maxAttempts} times`);
    const filter = { _id: record._id };
    await this.deliveries.updateOne(tenantId, filter, { $set: { status: 'sending', lastAttemptAt: new Date() }, $inc: { attempts: 1 } });
    const fields = { tenantId, deliveryId, channelId: record.channelId, attempt: delivery.attempt };
    try {
      await this.send(tenantId, deliveryId, record);
    } catch (error) {
      const permanent = error instanceof DeliveryError ? error.permanent : error instanceof SealedSecretError;
      const reason = error instanceof SealedSecretError ? 'the sealed webhook URL or secret cannot be opened' : (error as Error).message;
      if (permanent) {
        await this.deliveries.updateOne(tenantId, filter, { $set: { status: 'failed', lastError: reason, failedAt: new Date() } });
        this.logger.warn({ ...fields, reason }, 'notification delivery failed (permanent error)');
        return;
      }
      const retried = delivery.attempt < maxAttempts;
      await this.deliveries.updateOne(tenantId, filter, { $set: { lastError: reason, ...(retried ? { status: 'queued' } : {}) } });
      this.logger.warn({ ...fields, reason }, retried ? 'notification delivery attempt failed; it will be retried' : 'last attempt failed');
      throw new Error(reason);
    }
    await this.deliveries.updateOne(tenantId, filter, { $set: { status: 'sent', sentAt: new Date() }, $unset: { lastError: 1 } });
    this.logger.log(fields, 'notification delivered');
  }

  async deadLettered(letter: DeadLetter<DeliveryMessage>): Promise<void> {
    const { tenantId, deliveryId } = letter.payload;
    const record = await this.deliveries.findById(tenantId, deliveryId);
    if (!record || FINAL_DELIVERY_STATUSES.includes(record.status)) return;
    await this.deliveries.updateOne(
      tenantId,
      { _id: record._id },
      { $set: { status: 'dead_lettered', lastError: letter.error, failedAt: new Date() } },
    );
    this.logger.error(
      { tenantId, deliveryId, channelId: record.channelId, attempts: record.attempts, reason: letter.error },
      'notification delivery dead-lettered',
    );
  }

  private async send(tenantId: string, deliveryId: string, record: NotificationDelivery): Promise<void> {
    const channel = await this.channels.findById(tenantId, record.channelId);
    if (!channel) throw new DeliveryError('the channel was deleted', true);
    const envelope: Envelope = {
      id: deliveryId,
      topic: record.topic,
      message: { title: record.title, summary: record.summary, facts: record.facts, link: record.link, data: record.data },
      sentAt: new Date(),
    };
    if (channel.type === 'email') return this.sendEmail(channel, envelope);
    return this.sendWebhook(tenantId, record.channelId, channel, envelope);
  }

  private async sendEmail(channel: NotificationChannel, envelope: Envelope): Promise<void> {
    if (!this.env.SMTP_URL) throw new DeliveryError('this deployment has no SMTP server (SMTP_URL)', true);
    this.email ??= new EmailSender({ smtpUrl: this.env.SMTP_URL, from: this.env.SMTP_FROM, timeoutMs: this.env.NOTIFICATIONS_TIMEOUT_MS });
    const email = renderEmail(envelope);
    await withDeadline(
      this.email.send({ ...email, to: channel.recipients ?? [], deliveryId: envelope.id }),
      this.env.NOTIFICATIONS_TIMEOUT_MS,
    );
  }

  private async sendWebhook(tenantId: string, channelId: string, channel: NotificationChannel, envelope: Envelope): Promise<void> {
    if (!channel.sealedUrl || !channel.sealedSecret) throw new DeliveryError('the channel has no URL or secret', true);
    await postWebhook(
      {
        url: this.sealer.open(channel.sealedUrl, urlContext(tenantId, channelId)),
        secret: this.sealer.open(channel.sealedSecret, secretContext(tenantId, channelId)),
        body: webhookBody(channel.format ?? 'json', envelope),
        deliveryId: envelope.id,
        topic: envelope.topic.kind,
      },
      { allowPrivateHosts: this.env.NOTIFICATIONS_ALLOW_PRIVATE_HOSTS, timeoutMs: this.env.NOTIFICATIONS_TIMEOUT_MS },
    );
  }
}
