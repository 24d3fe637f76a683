import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const NOTIFICATION_SUBSCRIPTION = 'NotificationSubscription';
export const SUBSCRIPTION_TOPICS = ['budget', 'anomalies'] as const;
export type SubscriptionTopic = (typeof SUBSCRIPTION_TOPICS)[number];

/** Which channels hear a topic: budget alerts (of one budget, or of all when `budgetId` is absent) or anomalies. */
export interface NotificationSubscription {
  tenantId: string;
  name: string;
  channelIds: string[];
  topic: SubscriptionTopic;
  budgetId?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
}

export const NotificationSubscriptionSchema = new Schema<NotificationSubscription>(
  {
    name: { type: String, required: true },
    channelIds: { type: [String], required: true },
    topic: { type: String, enum: SUBSCRIPTION_TOPICS, required: true },
    budgetId: { type: String, default: null },
  },
  { collection: 'notification_subscriptions', timestamps: true, versionKey: false },
);
NotificationSubscriptionSchema.plugin(tenantScopedPlugin);
NotificationSubscriptionSchema.index({ tenantId: 1, _id: 1 });
// The subscriptions a message's topic matches (notify), and those naming a channel (a channel's deletion).
NotificationSubscriptionSchema.index({ tenantId: 1, topic: 1, budgetId: 1 });
NotificationSubscriptionSchema.index({ tenantId: 1, channelIds: 1 });
