import type { NotificationMessage } from '../notifications/notifier';
import type { Anomaly } from './schemas/anomaly.schema';

/** Most anomalies a message lists one by one (all of them are in `data`). */
export const MESSAGE_LISTED = 20;

const money = (amount: number, currency: string) =>
  `${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;

/**
 * `aws / 123456789012 / Amazon EC2`: the series' values in the order of its dimensions; a missing
 * one is `(none)`. A series of a virtual dimension or a tag names it: `team = payments`.
 */
export function seriesLabel(dimensions: Record<string, string | null>): string {
  return Object.entries(dimensions)
    .map(([name, value]) => {
      const shown = value ?? '(none)';
      return name.includes(':') ? `${name.replace(/^dimension:/, '')} = ${shown}` : shown;
    })
    .join(' / ');
}

/**
 * The one message of a detection run: every anomaly it found first, largest impact first, each
 * with its series, day, actual against expected and impact; linking to the console's anomalies.
 */
export function anomaliesMessage(
  found: Pick<Anomaly, 'dimensions' | 'day' | 'expected' | 'actual' | 'impact' | 'score'>[],
  context: { runId: string; currency: string; consoleUrl: string },
): NotificationMessage {
  const sorted = [...found].sort((a, b) => b.impact - a.impact);
  const total = sorted.reduce((sum, anomaly) => sum + anomaly.impact, 0);
  const count = sorted.length === 1 ? '1 cost anomaly' : `${sorted.length} cost anomalies`;
  const facts = sorted.slice(0, MESSAGE_LISTED).map((anomaly) => ({
    label: `${seriesLabel(anomaly.dimensions)} on ${anomaly.day}`,
    value:
      `${money(anomaly.actual, context.currency)} against ${money(anomaly.expected, context.currency)} expected ` +
      `(+${money(anomaly.impact, context.currency)})`,
  }));
  if (sorted.length > MESSAGE_LISTED) facts.push({ label: 'and more', value: `${sorted.length - MESSAGE_LISTED} more anomalies` });
  return {
    title: `${count} detected`,
    summary:
      `Daily costs rose above what their recent history predicts: ${count}, ` +
      `${money(total, context.currency)} above expectations in all. Acknowledge or dismiss them in the console.`,
    facts,
    link: `${context.consoleUrl}/anomalies`,
    data: {
      runId: context.runId,
      currency: context.currency,
      anomalies: sorted.map(({ dimensions, day, expected, actual, impact, score }) => ({
        dimensions,
        day,
        expected,
        actual,
        impact,
        score,
      })),
    },
  };
}
