import type { AnomalyQuery, Costs, CostsQuery, FocusExportQuery, ForecastQuery } from '../api/types';
import { hrefOf, intWithin, oneOf } from '../components/url-state';

export const DIMENSIONS = [
  ['providerName', 'Provider'],
  ['serviceName', 'Service'],
  ['category', 'Service category'],
  ['billingAccountId', 'Billing account'],
  ['billingAccountName', 'Billing account name'],
  ['assetAccountId', 'Sub-account'],
  ['region', 'Region'],
  ['chargeCategory', 'Charge category'],
  ['billingCurrency', 'Billing currency'],
] as const;
export const dimensionLabel = (name: string) =>
  DIMENSIONS.find(([dimension]) => dimension === name)?.[1] ??
  (name.startsWith('tag:') ? `Tag ${name.slice(4)}` : name.startsWith('dimension:') ? `Dimension ${name.slice(10)}` : name);

export const METRICS = [
  ['cost', 'Cost (corporate currency)'],
  ['billedCost', 'Billed cost'],
  ['effectiveCost', 'Effective cost'],
  ['listCost', 'List cost'],
] as const;

/** The view, as the URL holds it: share the address and the same view opens. */
export interface View {
  groupBy: string[];
  filter: string;
  from: string;
  to: string;
  granularity: 'month' | 'day';
  metric: NonNullable<CostsQuery['metric']>;
  top: number;
  chart: 'bar' | 'area';
}

const DEFAULTS = { groupBy: 'providerName', granularity: 'month', metric: 'cost', top: '10', chart: 'bar' };

/** The view of the address's query (anything missing or unknown takes its default). */
export function viewOf(query: Record<string, string | undefined>): View {
  return {
    groupBy: (query.groupBy ?? DEFAULTS.groupBy).split(',').filter(Boolean).slice(0, 3),
    filter: query.filter ?? '',
    from: query.from ?? '',
    to: query.to ?? '',
    granularity: oneOf(query.granularity, ['month', 'day'], 'month'),
    metric: oneOf(
      query.metric,
      METRICS.map(([metric]) => metric),
      'cost',
    ),
    top: intWithin(query.top, 1, 50, 10),
    chart: oneOf(query.chart, ['bar', 'area'], 'bar'),
  };
}

/** The address of a view: `groupBy` always (empty: the total), the rest when not the default; a range only with both ends. */
export function urlOf(view: View): string {
  const range = view.from && view.to;
  return hrefOf(
    '/explorer',
    {
      groupBy: view.groupBy.join(','),
      filter: view.filter || undefined,
      from: range ? view.from : undefined,
      to: range ? view.to : undefined,
      granularity: view.granularity,
      metric: view.metric,
      top: view.top,
      chart: view.chart,
    },
    { granularity: DEFAULTS.granularity, metric: DEFAULTS.metric, top: DEFAULTS.top, chart: DEFAULTS.chart },
  );
}

/** The costs query of a view. */
export function apiQuery(view: View): CostsQuery {
  return {
    ...(view.groupBy.length ? { groupBy: view.groupBy } : {}),
    ...(view.filter.trim() ? { filter: view.filter } : {}),
    ...(view.from && view.to ? { from: view.from, to: view.to } : {}),
    granularity: view.granularity,
    metric: view.metric,
    top: view.top,
  };
}

/** The month (YYYYMM) of a bound of the explorer's range (YYYYMM or YYYY-MM-DD). */
export const monthOf = (bound: string) => bound.replace(/-/g, '').slice(0, 6);

/** The months from `from` to `to` (YYYYMM or YYYY-MM-DD), at most `limit` of them. */
export function monthsBetween(from: string, to: string, limit = 120): string[] {
  const month = (bound: string) => Number(bound.slice(0, 4)) * 12 + Number(monthOf(bound).slice(4, 6)) - 1;
  const months: string[] = [];
  for (let at = month(from); at <= month(to) && months.length < limit; at++)
    months.push(`${Math.floor(at / 12)}${String((at % 12) + 1).padStart(2, '0')}`);
  return months;
}

/**
 * The line items behind the view, for a FOCUS export: the filter and the months shown (whole
 * months: the line-item expression knows periods, not days). Groupings and top N do not select.
 */
export function exportQuery(filter: string, shown: Pick<Costs, 'from' | 'to'>): FocusExportQuery {
  const months = monthsBetween(shown.from, shown.to);
  const period = months.map((month) => `period == '${month}'`).join(' || ');
  return { expr: filter.trim() ? `(${filter}) && (${period})` : period };
}

/** `<input type="month">` speaks YYYY-MM, the API YYYYMM; `<input type="date">` and the API both YYYY-MM-DD. */
export function toInput(bound: string, day: boolean, end: boolean): string {
  if (!day) return bound.length === 6 ? `${bound.slice(0, 4)}-${bound.slice(4)}` : bound.slice(0, 7);
  if (bound.length === 10) return bound;
  if (bound.length !== 6) return '';
  // a range in periods shown as days: its first or its last day
  const last = new Date(Date.UTC(Number(bound.slice(0, 4)), Number(bound.slice(4)) - (end ? 0 : 1), end ? 0 : 1));
  return last.toISOString().slice(0, 10);
}
export const fromInput = (value: string, day: boolean) => (day ? value : value.replace('-', ''));

/** The forecast query of a view: the explorer's groupings, filter, metric and top N (the forecast has its own range). */
export function forecastQuery(view: View): ForecastQuery {
  const { groupBy, filter, metric, top } = apiQuery(view);
  return { ...(groupBy ? { groupBy } : {}), ...(filter ? { filter } : {}), metric, top };
}

/** The anomalies query of a view: its range in days (whole months for a monthly range); none for the API's default range. */
export function anomalyQuery(view: View): AnomalyQuery {
  if (!view.from || !view.to) return { limit: 1000 };
  return { from: toInput(view.from, true, false), to: toInput(view.to, true, true), limit: 1000 };
}
