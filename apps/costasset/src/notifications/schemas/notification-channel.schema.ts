import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const NOTIFICATION_CHANNEL = 'NotificationChannel';
export const CHANNEL_TYPES = ['email', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export const WEBHOOK_FORMATS = ['json', 'slack', 'teams'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/**
 * Where notifications go (docs/notifications.md): an email list, or a webhook. A webhook's URL (a
 * Slack or Teams URL is itself a credential) and signing secret are stored sealed; only the URL's
 * origin is kept in clear, for display.
 */
export interface NotificationChannel {
  tenantId: string;
  name: string;
  type: ChannelType;
  /** email */
  recipients?: string[];
  /** webhook */
  format?: WebhookFormat;
  urlOrigin?: string;
  sealedUrl?: string;
  sealedSecret?: string;
  createdAt?: Date;
  updatedAt?: Date;
}

export const NotificationChannelSchema = new Schema<NotificationChannel>(
  {
    name: { type: String, required: true },
    type: { type: String, enum: CHANNEL_TYPES, required: true },
    recipients: { type: [String], default: undefined },
    format: { type: String, enum: WEBHOOK_FORMATS },
    urlOrigin: String,
    sealedUrl: String,
    sealedSecret: String,
  },
  { collection: 'notification_channels', timestamps: true, versionKey: false },
);
NotificationChannelSchema.plugin(tenantScopedPlugin);
// Pages of the tenant's channels in the order they were created.
NotificationChannelSchema.index({ tenantId: 1, _id: 1 });
