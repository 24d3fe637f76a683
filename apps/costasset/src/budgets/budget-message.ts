import type { NotificationMessage } from '../notifications/notifier';
import type { CrossingKind } from './schemas/threshold-crossing.schema';

/** What a crossing says: the budget's figures for the period when the threshold was crossed. */
export interface CrossingFacts {
  budgetId: string;
  budgetName: string;
  period: string;
  kind: CrossingKind;
  threshold: number;
  amount: number;
  actual: number;
  percentUsed: number;
  forecast: number | null;
  forecastLower: number | null;
  forecastUpper: number | null;
  currency: string;
}

/** The budget's scope: `words` for people, `filter` the explorer's expression of the same slice. */
export interface ScopeDescription {
  words: string;
  filter: string;
  expr?: string;
  groupId?: string;
}

/** `idempotencyKey` of a crossing's notification: one message per budget, period, kind and threshold. */
export const crossingKey = (facts: Pick<CrossingFacts, 'budgetId' | 'period' | 'kind' | 'threshold'>): string =>
  `budget:${facts.budgetId}:${facts.period}:${facts.kind}:${facts.threshold}`;

const money = (value: number, currency: string) =>
  `${new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value)} ${currency}`;

/** `202506` → `June 2025`. */
export const periodInWords = (period: string): string =>
  new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(4, 6)) - 1, 1)).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** `reached 80%` or `forecast to exceed 100%`. */
export const crossingInWords = (kind: CrossingKind, threshold: number): string =>
  kind === 'forecast' ? `forecast to exceed ${threshold}%` : `reached ${threshold}%`;

/**
 * The console's cost explorer over the period's days, by service, filtered to the budget's scope:
 * the query the explorer page reads (`groupBy`, `filter`, `from`/`to` as days, `granularity`).
 */
export function explorerLink(consoleUrl: string, period: string, filter: string): string {
  const year = Number(period.slice(0, 4));
  const month = Number(period.slice(4, 6));
  const day = (date: Date) => date.toISOString().slice(0, 10);
  const params = new URLSearchParams({
    groupBy: 'serviceName',
    filter,
    from: day(new Date(Date.UTC(year, month - 1, 1))),
    to: day(new Date(Date.UTC(year, month, 0))),
    granularity: 'day',
  });
  return `${consoleUrl}/explorer?${params.toString()}`;
}

/** The notification of a crossing, in the notifier's channel-neutral form. */
export function crossingMessage(facts: CrossingFacts, scope: ScopeDescription, consoleUrl: string): NotificationMessage {
  const { currency } = facts;
  const when = periodInWords(facts.period);
  const what = crossingInWords(facts.kind, facts.threshold);
  const forecast = facts.forecast === null ? 'no forecast' : money(facts.forecast, currency);
  const interval =
    facts.forecastLower !== null && facts.forecastUpper !== null
      ? ` (80% interval ${money(facts.forecastLower, currency)} to ${money(facts.forecastUpper, currency)})`
      : '';
  const summary =
    facts.kind === 'forecast'
      ? `Budget "${facts.budgetName}" (${scope.words}) is forecast to exceed ${facts.threshold}% of its ${money(facts.amount, currency)} ` +
        `in ${when}: the month-end forecast is ${forecast}${interval}, with ${money(facts.actual, currency)} ` +
        `(${facts.percentUsed}%) spent so far.`
      : `Budget "${facts.budgetName}" (${scope.words}) reached ${facts.threshold}% of its ${money(facts.amount, currency)} ` +
        `in ${when}: ${money(facts.actual, currency)} (${facts.percentUsed}%) spent; the month-end forecast is ${forecast}${interval}.`;
  return {
    title: `Budget "${facts.budgetName}" ${what} in ${when}`,
    summary,
    facts: [
      { label: 'Budget', value: facts.budgetName },
      { label: 'Scope', value: scope.words },
      { label: 'Period', value: when },
      { label: 'Threshold', value: what },
      { label: 'Amount', value: money(facts.amount, currency) },
      { label: 'Actual', value: `${money(facts.actual, currency)} (${facts.percentUsed}%)` },
      { label: 'Forecast', value: `${forecast}${interval}` },
    ],
    link: explorerLink(consoleUrl, facts.period, scope.filter),
    data: {
      budgetId: facts.budgetId,
      budgetName: facts.budgetName,
      scope: scope.groupId ? { groupId: scope.groupId } : { expr: scope.expr },
      period: facts.period,
      kind: facts.kind,
      threshold: facts.threshold,
      amount: facts.amount,
      actual: facts.actual,
      percentUsed: facts.percentUsed,
      forecast: facts.forecast,
      forecastLower: facts.forecastLower,
      forecastUpper: facts.forecastUpper,
      currency,
    },
  };
}
