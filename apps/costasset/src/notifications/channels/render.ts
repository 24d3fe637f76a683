import type { NotificationMessage, NotificationTopic } from '../notifier';
import type { WebhookFormat } from '../schemas/notification-channel.schema';

/** What every rendering sees: the message and the delivery it travels in. */
export interface Envelope {
  /** The delivery's id: the same on every attempt, so that a receiver can drop a repeat. */
  id: string;
  topic: NotificationTopic;
  message: NotificationMessage;
  sentAt: Date;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML element or a quoted attribute value. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);

/** Only http(s) links are rendered as links (never `javascript:` and the like). */
export function safeLink(link: string | undefined): string | undefined {
  if (!link) return undefined;
  try {
    const url = new URL(link);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** The email: subject, a plain-text part and an HTML part with the same content. */
export function renderEmail({ message }: Envelope): { subject: string; text: string; html: string } {
  const link = safeLink(message.link);
  const width = Math.max(0, ...message.facts.map((fact) => fact.label.length));
  const text = [
    message.title,
    '',
    message.summary,
    ...(message.facts.length ? ['', ...message.facts.map((fact) => `${`${fact.label}:`.padEnd(width + 2)}${fact.value}`)] : []),
    ...(link ? ['', `Open: ${link}`] : []),
    '',
  ].join('\n');
  const rows = message.facts
    .map(
      (fact) =>
        `<tr><th align="left" style="padding:4px 12px 4px 0">${escapeHtml(fact.label)}</th>` +
        `<td style="padding:4px 0">${escapeHtml(fact.value)}</td></tr>`,
    )
    .join('\n');
  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><title>' + escapeHtml(message.title) + '</title></head>',
    '<body style="font-family:sans-serif">',
    `<h2>${escapeHtml(message.title)}</h2>`,
    `<p>${escapeHtml(message.summary)}</p>`,
    ...(rows ? [`<table>\n${rows}\n</table>`] : []),
    ...(link ? [`<p><a href="${escapeHtml(link)}">Open in corelite</a></p>`] : []),
    '</body></html>',
    '',
  ].join('\n');
  return { subject: message.title.replace(/[\r\n]+/g, ' '), text, html };
}

/** The JSON format's body (docs/notifications.md). */
export function jsonBody({ id, topic, message, sentAt }: Envelope) {
  return {
    id,
    topic,
    title: message.title,
    summary: message.summary,
    facts: message.facts,
    link: safeLink(message.link) ?? null,
    data: message.data,
    sentAt: sentAt.toISOString(),
  };
}

/** Slack's mrkdwn treats `&`, `<` and `>` as control characters. */
const escapeSlack = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Slack incoming-webhook message: `text` (the notification's fallback) and Block Kit blocks. */
export function slackBody({ message }: Envelope) {
  const link = safeLink(message.link);
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: message.title.slice(0, 150) } },
    { type: 'section', text: { type: 'mrkdwn', text: escapeSlack(message.summary || message.title) } },
  ];
  // a section holds at most 10 fields
  for (let start = 0; start < message.facts.length; start += 10) {
    blocks.push({
      type: 'section',
      fields: message.facts
        .slice(start, start + 10)
        .map((fact) => ({ type: 'mrkdwn', text: `*${escapeSlack(fact.label)}*\n${escapeSlack(fact.value)}` })),
    });
  }
  if (link) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${link}|Open in corelite>` } });
  return { text: escapeSlack(message.title), blocks };
}

/** A Teams incoming-webhook message carrying one Adaptive Card (title, summary, facts, a link action). */
export function teamsBody({ message }: Envelope) {
  const link = safeLink(message.link);
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: message.title, weight: 'Bolder', size: 'Medium', wrap: true },
            { type: 'TextBlock', text: message.summary, wrap: true },
            ...(message.facts.length
              ? [{ type: 'FactSet', facts: message.facts.map((fact) => ({ title: fact.label, value: fact.value })) }]
              : []),
          ],
          ...(link ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in corelite', url: link }] } : {}),
        },
      },
    ],
  };
}

export function webhookBody(format: WebhookFormat, envelope: Envelope): unknown {
  if (format === 'slack') return slackBody(envelope);
  if (format === 'teams') return teamsBody(envelope);
  return jsonBody(envelope);
}
