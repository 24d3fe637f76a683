import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { NOTIFICATION_CHANNEL, NotificationChannel } from './schemas/notification-channel.schema';
import { NOTIFICATION_DELIVERY, NotificationDelivery } from './schemas/notification-delivery.schema';
import { NOTIFICATION_SUBSCRIPTION, NotificationSubscription, SubscriptionTopic } from './schemas/notification-subscription.schema';

@Injectable()
export class NotificationChannelRepository extends TenantRepository<NotificationChannel> {
  constructor(@InjectModel(NOTIFICATION_CHANNEL) model: Model<NotificationChannel>) {
    super(model);
  }
}

@Injectable()
export class NotificationSubscriptionRepository extends TenantRepository<NotificationSubscription> {
  constructor(@InjectModel(NOTIFICATION_SUBSCRIPTION) model: Model<NotificationSubscription>) {
    super(model);
  }

  /** Subscriptions to `topic` (for budgets: to every budget, or to `budgetId`). */
  matching(tenantId: string, topic: SubscriptionTopic, budgetId?: string) {
    const budgets = topic === 'budget' ? { budgetId: { $in: [null, ...(budgetId ? [budgetId] : [])] } } : {};
    return this.find(tenantId, { topic, ...budgets }, { limit: 1000 });
  }

  /** Takes a deleted channel out of every subscription naming it. */
  removeChannel(tenantId: string, channelId: string): Promise<number> {
    return this.updateMany(tenantId, { channelIds: channelId }, { $pull: { channelIds: channelId } });
  }
}

@Injectable()
export class NotificationDeliveryRepository extends TenantRepository<NotificationDelivery> implements OnModuleInit {
  constructor(@InjectModel(NOTIFICATION_DELIVERY) model: Model<NotificationDelivery>) {
    super(model);
  }

  /** The unique (tenant, channel, idempotency key) index must exist before the first delivery, or a duplicate could slip in. */
  async onModuleInit(): Promise<void> {
    await this.model.init();
  }
}
