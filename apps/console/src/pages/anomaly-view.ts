import type { Anomaly, AnomalyQuery, AnomalyStatus } from '../api/types';
import { hrefOf, oneOf } from '../components/url-state';
import { urlOf, viewOf } from './explorer-view';

export const STATUSES = [
  ['open', 'Open'],
  ['acknowledged', 'Acknowledged'],
  ['dismissed', 'Dismissed'],
  ['all', 'Any status'],
] as const;
export type StatusFilter = (typeof STATUSES)[number][0];

/** The anomalies page's filter, as its address holds it: a range of days (the last 30 by default) and a status (open). */
export interface AnomalyFilter {
  from: string;
  to: string;
  status: StatusFilter;
}

const DAY_MS = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);
const isDay = (value: string | undefined): value is string => /^\d{4}-\d{2}-\d{2}$/.test(value ?? '');
/** A day `days` after `day` (YYYY-MM-DD, UTC). */
export const addDays = (day: string, days: number) => isoDay(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS);

export function defaultFilter(today: Date): AnomalyFilter {
  const to = isoDay(today.getTime());
  return { from: addDays(to, -29), to, status: 'open' };
}

export function anomalyFilterOf(query: Record<string, string | undefined>, today: Date): AnomalyFilter {
  const defaults = defaultFilter(today);
  return {
    from: isDay(query.from) ? query.from : defaults.from,
    to: isDay(query.to) ? query.to : defaults.to,
    status: oneOf(
      query.status,
      STATUSES.map(([status]) => status),
      'open',
    ),
  };
}

export function anomaliesHref(filter: AnomalyFilter, today: Date): string {
  const defaults = defaultFilter(today);
  return hrefOf('/anomalies', { from: filter.from, to: filter.to, status: filter.status }, { ...defaults });
}

export function anomalyApiQuery(filter: AnomalyFilter): AnomalyQuery {
  return { from: filter.from, to: filter.to, limit: 1000, ...(filter.status === 'all' ? {} : { status: filter.status }) };
}

/**
 * The status changes offered for a status: acknowledge or dismiss an open one, dismiss or reopen an
 * acknowledged one, reopen a dismissed one.
 */
export function transitions(status: AnomalyStatus): [AnomalyStatus, string][] {
  if (status === 'open')
    return [
      ['acknowledged', 'Acknowledge'],
      ['dismissed', 'Dismiss'],
    ];
  if (status === 'acknowledged')
    return [
      ['dismissed', 'Dismiss'],
      ['open', 'Reopen'],
    ];
  return [['open', 'Reopen']];
}

/** A string of the expression language, quoted (a backslash escapes `\`, `"` and `$`). */
const quoted = (value: string) => `"${value.replace(/[\\"$]/g, (character) => `\\${character}`)}"`;

/** The explorer's filter selecting an anomaly's series (a dimension without a value cannot be compared, and is left out). */
export function seriesFilter(dimensions: Record<string, string | null>): string {
  return Object.entries(dimensions)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([dimension, value]) => `${dimension} == ${quoted(value)}`)
    .join(' && ');
}

/** The explorer showing an anomaly's series by day, two weeks before its day to a week after it (not past today). */
export function anomalyExplorerHref(anomaly: Pick<Anomaly, 'day' | 'dimensions'>, today: Date): string {
  const last = addDays(anomaly.day, 7);
  const todayIso = isoDay(today.getTime());
  return urlOf({
    ...viewOf({}),
    groupBy: ['serviceName'],
    filter: seriesFilter(anomaly.dimensions),
    granularity: 'day',
    from: addDays(anomaly.day, -14),
    to: last > todayIso ? todayIso : last,
  });
}
