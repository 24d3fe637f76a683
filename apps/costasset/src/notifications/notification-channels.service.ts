import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import { SecretSealer } from '@lib/config';
import { DEFAULT_PAGE_SIZE, PageQuery } from '@lib/http';
import type { Paged } from '@lib/core';
import { CostassetEnvironment } from '../costasset.environment';
import { isForbiddenHost } from '../outbound/host-policy';
import { generateSigningSecret } from './channels/signature';
import { DeliveryDispatcher, QueuedDelivery } from './delivery-dispatcher';
import { secretContext, urlContext } from './delivery-worker';
import {
  CreateNotificationChannelRequest,
  NotificationChannelResponse,
  NotificationChannelWithSecretResponse,
  UpdateNotificationChannelRequest,
} from './dto/notification-channel.dto';
import { NotificationDeliveryResponse } from './dto/notification-delivery.dto';
import {
  NotificationChannelRepository,
  NotificationDeliveryRepository,
  NotificationSubscriptionRepository,
} from './notifications.repositories';
import { NotificationProblems } from './notifications.problems';
import type { NotificationMessage } from './notifier';
import { NotificationChannel } from './schemas/notification-channel.schema';

type StoredChannel = NotificationChannel & { _id: unknown };

const iso = (date: Date | undefined) => (date ?? new Date()).toISOString();

export const toChannelResponse = (record: StoredChannel): NotificationChannelResponse => ({
  id: String(record._id),
  name: record.name,
  type: record.type,
  ...(record.type === 'email' ? { recipients: record.recipients ?? [] } : {}),
  ...(record.type === 'webhook' ? { format: record.format ?? 'json', urlOrigin: record.urlOrigin, secretSet: !!record.sealedSecret } : {}),
  createdAt: iso(record.createdAt),
  updatedAt: iso(record.updatedAt),
});

export const toDeliveryResponse = (record: QueuedDelivery): NotificationDeliveryResponse => ({
  id: String(record._id),
  channelId: record.channelId,
  status: record.status,
  attempts: record.attempts,
  ...(record.lastError ? { lastError: record.lastError } : {}),
  topic: record.topic.kind,
  ...(record.topic.kind === 'budget' ? { budgetId: record.topic.budgetId } : {}),
  title: record.title,
  idempotencyKey: record.idempotencyKey,
  createdAt: iso(record.createdAt),
  updatedAt: iso(record.updatedAt),
  ...(record.lastAttemptAt ? { lastAttemptAt: record.lastAttemptAt.toISOString() } : {}),
  ...(record.sentAt ? { sentAt: record.sentAt.toISOString() } : {}),
  ...(record.failedAt ? { failedAt: record.failedAt.toISOString() } : {}),
});

/** Notification channels of a tenant (docs/notifications.md): email lists and signed webhooks. */
@Injectable()
export class NotificationChannelsService {
  constructor(
    private readonly channels: NotificationChannelRepository,
    private readonly subscriptions: NotificationSubscriptionRepository,
    private readonly deliveries: NotificationDeliveryRepository,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly sealer: SecretSealer,
    private readonly env: CostassetEnvironment,
  ) {}

  async create(tenantId: string, body: CreateNotificationChannelRequest): Promise<NotificationChannelWithSecretResponse> {
    const id = new Types.ObjectId();
    const channelId = String(id);
    if (body.type === 'email') {
      for (const field of ['url', 'format', 'secret'] as const) {
        if (body[field] !== undefined) throw NotificationProblems.invalid(field, `${field} is for webhook channels only`);
      }
      if (!this.env.SMTP_URL) throw NotificationProblems.smtpNotConfigured();
      const record = await this.channels.create(tenantId, {
        _id: id,
        name: body.name,
        type: 'email',
        recipients: body.recipients,
      } as never);
      return toChannelResponse(record);
    }
    if (body.recipients !== undefined) throw NotificationProblems.invalid('recipients', 'recipients is for email channels only');
    const url = await this.webhookUrl(body.url as string);
    const signingSecret = body.secret ?? generateSigningSecret();
    const record = await this.channels.create(tenantId, {
      _id: id,
      name: body.name,
      type: 'webhook',
      format: body.format ?? 'json',
      urlOrigin: url.origin,
      sealedUrl: this.sealer.seal(url.toString(), urlContext(tenantId, channelId)),
      sealedSecret: this.sealer.seal(signingSecret, secretContext(tenantId, channelId)),
    } as never);
    return { ...toChannelResponse(record), ...(body.secret ? {} : { signingSecret }) };
  }

  async page(tenantId: string, query: PageQuery): Promise<Paged<NotificationChannelResponse>> {
    const page = await this.channels.page(tenantId, {}, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(toChannelResponse), nextCursor: page.nextCursor };
  }

  async get(tenantId: string, id: string): Promise<NotificationChannelResponse> {
    return toChannelResponse(await this.find(tenantId, id));
  }

  async update(tenantId: string, id: string, body: UpdateNotificationChannelRequest): Promise<NotificationChannelWithSecretResponse> {
    const channel = await this.find(tenantId, id);
    const set: Partial<NotificationChannel> = {};
    if (body.name !== undefined) set.name = body.name;
    let signingSecret: string | undefined;
    if (channel.type === 'email') {
      for (const field of ['url', 'format', 'secret', 'rotateSecret'] as const) {
        if (body[field] !== undefined) throw NotificationProblems.invalid(field, `${field} is for webhook channels only`);
      }
      if (body.recipients !== undefined) set.recipients = body.recipients;
    } else {
      if (body.recipients !== undefined) throw NotificationProblems.invalid('recipients', 'recipients is for email channels only');
      if (body.secret !== undefined && body.rotateSecret)
        throw NotificationProblems.invalid('secret', 'give secret or rotateSecret, not both');
      if (body.format !== undefined) set.format = body.format;
      if (body.url !== undefined) {
        const url = await this.webhookUrl(body.url);
        set.urlOrigin = url.origin;
        set.sealedUrl = this.sealer.seal(url.toString(), urlContext(tenantId, id));
      }
      if (body.rotateSecret) signingSecret = generateSigningSecret();
      const secret = body.secret ?? signingSecret;
      if (secret !== undefined) set.sealedSecret = this.sealer.seal(secret, secretContext(tenantId, id));
    }
    const updated = await this.channels.findOneAndUpdate(tenantId, { _id: channel._id }, { $set: set });
    if (!updated) throw NotificationProblems.channelNotFound();
    return { ...toChannelResponse(updated), ...(signingSecret ? { signingSecret } : {}) };
  }

  /** The channel goes, and is taken out of every subscription naming it; its queued deliveries then fail ("the channel was deleted"). */
  async remove(tenantId: string, id: string): Promise<void> {
    const channel = await this.find(tenantId, id);
    await this.channels.deleteOne(tenantId, { _id: channel._id });
    await this.subscriptions.removeChannel(tenantId, id);
  }

  /** Queues a test message to this channel alone; answers the delivery. */
  async sendTest(tenantId: string, id: string): Promise<NotificationDeliveryResponse> {
    const channel = await this.find(tenantId, id);
    const message: NotificationMessage = {
      title: `corelite test notification: ${channel.name}`,
      summary: `This is a test message to the notification channel "${channel.name}". If you can read it, the channel works.`,
      facts: [
        { label: 'Channel', value: channel.name },
        { label: 'Type', value: channel.type === 'webhook' ? `webhook (${channel.format ?? 'json'})` : 'email' },
      ],
      link: `${this.env.consoleUrl}/`,
      data: { channelId: id, test: true },
    };
    const delivery = await this.dispatcher.queue(tenantId, id, { kind: 'test' }, message, `test:${randomUUID()}`);
    if (!delivery) throw new Error('a test delivery key was used twice');
    return toDeliveryResponse(delivery);
  }

  /** The channel's delivery log, newest first. */
  async deliveryLog(tenantId: string, id: string, query: PageQuery): Promise<Paged<NotificationDeliveryResponse>> {
    await this.find(tenantId, id);
    const page = await this.deliveries.page(tenantId, { channelId: id }, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor, 'newest');
    return { items: page.items.map(toDeliveryResponse), nextCursor: page.nextCursor };
  }

  private async find(tenantId: string, id: string): Promise<StoredChannel> {
    const channel = await this.channels.findById(tenantId, id);
    if (!channel) throw NotificationProblems.channelNotFound();
    return channel;
  }

  /** http(s), no credentials, no fragment; a private or loopback host only when the deployment allows it (checked again on each send). */
  private async webhookUrl(value: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw NotificationProblems.invalidUrl('is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw NotificationProblems.invalidUrl('must be http or https');
    if (url.username || url.password) throw NotificationProblems.invalidUrl('must not carry credentials');
    url.hash = '';
    if (!this.env.NOTIFICATIONS_ALLOW_PRIVATE_HOSTS && (await isForbiddenHost(url.hostname))) {
      throw NotificationProblems.hostNotAllowed(url.hostname.replace(/^\[|\]$/g, ''));
    }
    return url;
  }
}
