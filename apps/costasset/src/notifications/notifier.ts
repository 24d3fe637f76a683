/**
 * How features tell people: the one entry point that budgets and anomaly detection call. The
 * notifications module provides it (channels, subscriptions, deliveries); callers never see a
 * channel. Injected as the abstract class `Notifier`.
 */

/** What a message is about; subscriptions choose topics (and, for budgets, which budgets). */
export type NotificationTopic =
  | { kind: 'budget'; budgetId: string }
  | { kind: 'anomalies' }
  | { kind: 'test' };

export interface NotificationFact {
  label: string;
  value: string;
}

/** A message in the channel-neutral form each channel renders (email HTML and text, JSON, Slack, Teams). */
export interface NotificationMessage {
  /** One line: the email subject, the chat message's title. */
  title: string;
  /** A few sentences of plain text. */
  summary: string;
  /** Label/value pairs shown as a table or fields (budget, scope, actual, forecast, threshold…). */
  facts: NotificationFact[];
  /** Where to look: an absolute URL of the console view behind the message, when there is one. */
  link?: string;
  /** Machine-readable payload for webhooks (`data` of the JSON body). */
  data: Record<string, unknown>;
}

export abstract class Notifier {
  /**
   * Sends `message` to every channel subscribed to `topic` in the tenant, each as a delivery job.
   * `idempotencyKey` names the event (e.g. `budget:<id>:<period>:actual:80`): a second call with
   * the same key, from any instance, sends nothing again. Resolves once the deliveries are queued
   * (not sent); answers how many were queued.
   */
  abstract notify(tenantId: string, topic: NotificationTopic, message: NotificationMessage, idempotencyKey: string): Promise<number>;
}
