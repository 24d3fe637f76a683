import type { Budget, ChannelRequest, ChannelUpdate, Delivery, NotificationChannel, Subscription } from '../api/types';

/** A channel form's fields, as typed (recipients one text, the secret optional). */
export interface ChannelForm {
  type: 'email' | 'webhook';
  name: string;
  recipients: string;
  url: string;
  format: 'json' | 'slack' | 'teams';
  secret: string;
}

export const FORMATS = [
  ['json', 'JSON (signed)'],
  ['slack', 'Slack incoming webhook'],
  ['teams', 'Microsoft Teams (Adaptive Card)'],
] as const;

export function blankChannel(type: ChannelForm['type'] = 'webhook'): ChannelForm {
  return { type, name: '', recipients: '', url: '', format: 'json', secret: '' };
}

/** The form of an existing channel: its URL and secret are never answered, so they stay empty (kept unless typed). */
export function channelFormOf(channel: NotificationChannel): ChannelForm {
  return {
    type: channel.type,
    name: channel.name,
    recipients: (channel.recipients ?? []).join(', '),
    url: '',
    format: channel.format ?? 'json',
    secret: '',
  };
}

/** Addresses separated by commas, semicolons, spaces or lines; blanks and repeats dropped. */
export function parseRecipients(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
}

/** The create request of a form: an email channel's recipients, or a webhook's URL, format and (optional) secret. */
export function createRequest(form: ChannelForm): ChannelRequest {
  const name = form.name.trim();
  // `format` has a default, so the generated type requires it; an email channel must not send it (400)
  if (form.type === 'email') return { type: 'email', name, recipients: parseRecipients(form.recipients) } as ChannelRequest;
  return { type: 'webhook', name, url: form.url.trim(), format: form.format, ...(form.secret ? { secret: form.secret } : {}) };
}

/** The change request of a form: a webhook's URL and secret only when typed (empty keeps the stored ones). */
export function updateRequest(form: ChannelForm): ChannelUpdate {
  const name = form.name.trim();
  if (form.type === 'email') return { name, recipients: parseRecipients(form.recipients) };
  return {
    name,
    format: form.format,
    ...(form.url.trim() ? { url: form.url.trim() } : {}),
    ...(form.secret ? { secret: form.secret } : {}),
  };
}

/** Where a channel sends: its recipients, or its webhook's origin (the URL itself is sealed and never answered). */
export function channelTarget(channel: Pick<NotificationChannel, 'type' | 'recipients' | 'urlOrigin' | 'format'>): string {
  if (channel.type === 'email') return (channel.recipients ?? []).join(', ');
  return `${channel.urlOrigin ?? '(URL set)'} · ${channel.format ?? 'json'}`;
}

/** What a subscription hears, in words. */
export function subscriptionTopic(subscription: Pick<Subscription, 'topic' | 'budgetId'>, budgets: readonly Budget[] = []): string {
  if (subscription.topic === 'anomalies') return 'Cost anomalies';
  if (!subscription.budgetId) return 'Alerts of every budget';
  const budget = budgets.find((one) => one.id === subscription.budgetId);
  return `Alerts of budget ${budget ? budget.name : `${subscription.budgetId} (not found)`}`;
}

/** The names of a subscription's channels (an id no channel has any more reads as such). */
export function channelNames(ids: readonly string[], channels: readonly NotificationChannel[]): string {
  if (ids.length === 0) return 'no channel (sends nothing)';
  return ids.map((id) => channels.find((channel) => channel.id === id)?.name ?? `${id} (deleted)`).join(', ');
}

export const DELIVERY_TONES: Record<Delivery['status'], string> = {
  queued: 'busy',
  sending: 'busy',
  sent: 'ok',
  failed: 'bad',
  dead_lettered: 'bad',
};

/** Whether a delivery log is still moving (something queued or sending), so the page asks again. */
export const stillMoving = (deliveries: readonly Pick<Delivery, 'status'>[]) =>
  deliveries.some((delivery) => delivery.status === 'queued' || delivery.status === 'sending');

/** The time a delivery last changed: sent, failed, last attempted, or queued. */
export const deliveryTime = (delivery: Delivery) => delivery.sentAt ?? delivery.failedAt ?? delivery.lastAttemptAt ?? delivery.createdAt;
