import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import type { NotificationFact, NotificationTopic } from '../notifier';

export const NOTIFICATION_DELIVERY = 'NotificationDelivery';
export const DELIVERY_STATUSES = ['queued', 'sending', 'sent', 'failed', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** Statuses a delivery does not leave. */
export const FINAL_DELIVERY_STATUSES: DeliveryStatus[] = ['sent', 'failed', 'dead_lettered'];

/**
 * One message to one channel: the truth the delivery queue's messages point at (they carry only
 * ids). Unique on (tenant, channel, idempotency key): the same event is queued once per channel,
 * whichever instance noticed it first.
 */
export interface NotificationDelivery {
  tenantId: string;
  channelId: string;
  idempotencyKey: string;
  topic: NotificationTopic;
  title: string;
  summary: string;
  facts: NotificationFact[];
  link?: string;
  data: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  lastError?: string;
  lastAttemptAt?: Date;
  sentAt?: Date;
  /** When it ended failed or dead-lettered. */
  failedAt?: Date;
  createdAt?: Date;
  updatedAt?: Date;
}

export const NotificationDeliverySchema = new Schema<NotificationDelivery>(
  {
    channelId: { type: String, required: true },
    idempotencyKey: { type: String, required: true },
    topic: { type: Schema.Types.Mixed, required: true },
    title: { type: String, required: true },
    summary: { type: String, default: '' },
    facts: { type: [{ _id: false, label: String, value: String }], default: [] },
    link: String,
    data: { type: Schema.Types.Mixed, default: {} },
    status: { type: String, enum: DELIVERY_STATUSES, required: true },
    attempts: { type: Number, default: 0 },
    lastError: String,
    lastAttemptAt: Date,
    sentAt: Date,
    failedAt: Date,
  },
  { collection: 'notification_deliveries', timestamps: true, versionKey: false, minimize: false },
);
NotificationDeliverySchema.plugin(tenantScopedPlugin);
NotificationDeliverySchema.index({ tenantId: 1, channelId: 1, idempotencyKey: 1 }, { unique: true });
// A channel's delivery log, newest first.
NotificationDeliverySchema.index({ tenantId: 1, channelId: 1, _id: -1 });
