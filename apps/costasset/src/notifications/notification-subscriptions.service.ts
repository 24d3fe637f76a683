import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import type { Paged } from '@lib/core';
import { DEFAULT_PAGE_SIZE, PageQuery } from '@lib/http';
import {
  CreateNotificationSubscriptionRequest,
  NotificationSubscriptionResponse,
  UpdateNotificationSubscriptionRequest,
} from './dto/notification-subscription.dto';
import { NotificationChannelRepository, NotificationSubscriptionRepository } from './notifications.repositories';
import { NotificationProblems } from './notifications.problems';
import { NotificationSubscription, SubscriptionTopic } from './schemas/notification-subscription.schema';

type StoredSubscription = NotificationSubscription & { _id: unknown };

const toResponse = (record: StoredSubscription): NotificationSubscriptionResponse => ({
  id: String(record._id),
  name: record.name,
  channelIds: record.channelIds,
  topic: record.topic,
  budgetId: record.budgetId ?? null,
  createdAt: (record.createdAt ?? new Date()).toISOString(),
  updatedAt: (record.updatedAt ?? new Date()).toISOString(),
});

/** Which channels hear which topic (docs/notifications.md). */
@Injectable()
export class NotificationSubscriptionsService {
  constructor(
    private readonly subscriptions: NotificationSubscriptionRepository,
    private readonly channels: NotificationChannelRepository,
  ) {}

  async create(tenantId: string, body: CreateNotificationSubscriptionRequest): Promise<NotificationSubscriptionResponse> {
    this.checkBudget(body.topic, body.budgetId);
    await this.checkChannels(tenantId, body.channelIds);
    const record = await this.subscriptions.create(tenantId, {
      name: body.name,
      channelIds: body.channelIds,
      topic: body.topic,
      budgetId: body.budgetId ?? null,
    });
    return toResponse(record);
  }

  async page(tenantId: string, query: PageQuery): Promise<Paged<NotificationSubscriptionResponse>> {
    const page = await this.subscriptions.page(tenantId, {}, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(toResponse), nextCursor: page.nextCursor };
  }

  async get(tenantId: string, id: string): Promise<NotificationSubscriptionResponse> {
    return toResponse(await this.find(tenantId, id));
  }

  async update(tenantId: string, id: string, body: UpdateNotificationSubscriptionRequest): Promise<NotificationSubscriptionResponse> {
    const current = await this.find(tenantId, id);
    const topic = body.topic ?? current.topic;
    const budgetId = body.budgetId !== undefined ? body.budgetId : topic === 'budget' ? current.budgetId : null;
    this.checkBudget(topic, budgetId);
    if (body.channelIds) await this.checkChannels(tenantId, body.channelIds);
    const set = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.channelIds ? { channelIds: body.channelIds } : {}),
      topic,
      budgetId: budgetId ?? null,
    };
    const updated = await this.subscriptions.findOneAndUpdate(tenantId, { _id: current._id }, { $set: set });
    if (!updated) throw NotificationProblems.subscriptionNotFound();
    return toResponse(updated);
  }

  async remove(tenantId: string, id: string): Promise<void> {
    const current = await this.find(tenantId, id);
    await this.subscriptions.deleteOne(tenantId, { _id: current._id });
  }

  private async find(tenantId: string, id: string): Promise<StoredSubscription> {
    const record = await this.subscriptions.findById(tenantId, id);
    if (!record) throw NotificationProblems.subscriptionNotFound();
    return record;
  }

  private checkBudget(topic: SubscriptionTopic, budgetId: string | null | undefined): void {
    if (topic !== 'budget' && budgetId) throw NotificationProblems.invalid('budgetId', 'budgetId is for the topic budget only');
  }

  private async checkChannels(tenantId: string, channelIds: string[]): Promise<void> {
    const found = await this.channels.find(tenantId, { _id: { $in: channelIds.map((id) => new Types.ObjectId(id)) } }, {}, { _id: 1 });
    const known = new Set(found.map((channel) => String(channel._id)));
    const unknown = channelIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw NotificationProblems.unknownChannels(unknown);
  }
}
