import { useLocation } from 'preact-iso';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { costasset, download, unwrap } from '../api/client';
import type { Costs, CostsQuery, FocusExportQuery } from '../api/types';
import { noVisibilityReason, useMe } from '../auth/me';
import { Chart } from '../components/chart';
import { stackedCostOption } from '../components/cost-chart';
import { ExpressionInput } from '../components/expression-input';
import { FocusExportButtons } from '../components/focus-export';
import { bucketLabel, money, seriesLabel } from '../components/format';
import { Card, Empty, ErrorBox, Loading, PageHeader } from '../components/states';
import { useApi, useAction } from '../components/use-api';

const DIMENSIONS = [
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
const dimensionLabel = (name: string) => DIMENSIONS.find(([dimension]) => dimension === name)?.[1] ?? (name.startsWith('tag:') ? `Tag ${name.slice(4)}` : name);

const METRICS = [
  ['cost', 'Cost (corporate currency)'],
  ['billedCost', 'Billed cost'],
  ['effectiveCost', 'Effective cost'],
  ['listCost', 'List cost'],
] as const;
const FILTER_HINT = 'e.g. providerName == "aws" && region != "us-east-1" or tag("team", "owner" == "alpha")';

/** The view, as the URL holds it: share the address and the same view opens. */
interface View {
  groupBy: string[];
  filter: string;
  from: string;
  to: string;
  granularity: 'month' | 'day';
  metric: NonNullable<CostsQuery['metric']>;
  top: number;
  chart: 'bar' | 'area';
}

function viewOf(query: Record<string, string>): View {
  return {
    groupBy: (query.groupBy ?? 'providerName').split(',').filter(Boolean).slice(0, 3),
    filter: query.filter ?? '',
    from: query.from ?? '',
    to: query.to ?? '',
    granularity: query.granularity === 'day' ? 'day' : 'month',
    metric: (METRICS.find(([value]) => value === query.metric)?.[0] ?? 'cost') as View['metric'],
    top: Math.min(Math.max(Number(query.top) || 10, 1), 50),
    chart: query.chart === 'area' ? 'area' : 'bar',
  };
}

function urlOf(view: View): string {
  const params = new URLSearchParams();
  params.set('groupBy', view.groupBy.join(','));
  if (view.filter) params.set('filter', view.filter);
  if (view.from && view.to) {
    params.set('from', view.from);
    params.set('to', view.to);
  }
  if (view.granularity !== 'month') params.set('granularity', view.granularity);
  if (view.metric !== 'cost') params.set('metric', view.metric);
  if (view.top !== 10) params.set('top', String(view.top));
  if (view.chart !== 'bar') params.set('chart', view.chart);
  return `/explorer?${params}`;
}

function apiQuery(view: View): CostsQuery {
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
const monthOf = (bound: string) => bound.replace(/-/g, '').slice(0, 6);

/** The months from `from` to `to` (YYYYMM or YYYY-MM-DD), at most `limit` of them. */
function monthsBetween(from: string, to: string, limit = 120): string[] {
  const month = (bound: string) => Number(bound.slice(0, 4)) * 12 + Number(monthOf(bound).slice(4, 6)) - 1;
  const months: string[] = [];
  for (let at = month(from); at <= month(to) && months.length < limit; at++) months.push(`${Math.floor(at / 12)}${String((at % 12) + 1).padStart(2, '0')}`);
  return months;
}

/**
 * The line items behind the view, for a FOCUS export: the filter and the months shown (whole
 * months: the line-item expression knows periods, not days). Groupings and top N do not select.
 */
function exportQuery(filter: string, shown: Costs): FocusExportQuery {
  const months = monthsBetween(shown.from, shown.to);
  const period = months.length === 1 ? `period == '${months[0]}'` : months.map((month) => `period == '${month}'`).join(' || ');
  const expr = filter.trim() ? `(${filter}) && (${period})` : period;
  return { expr };
}

/** `<input type="month">` speaks YYYY-MM, the API YYYYMM; `<input type="date">` and the API both YYYY-MM-DD. */
function toInput(bound: string, day: boolean, end: boolean): string {
  if (!day) return bound.length === 6 ? `${bound.slice(0, 4)}-${bound.slice(4)}` : bound.slice(0, 7);
  if (bound.length === 10) return bound;
  if (bound.length !== 6) return '';
  // a range in periods shown as days: its first or its last day
  const last = new Date(Date.UTC(Number(bound.slice(0, 4)), Number(bound.slice(4)) - (end ? 0 : 1), end ? 0 : 1));
  return last.toISOString().slice(0, 10);
}
const fromInput = (value: string, day: boolean) => (day ? value : value.replace('-', ''));

function GroupingSelect({ index, value, onChange }: { index: number; value: string | undefined; onChange: (value: string | undefined) => void }) {
  const isTag = value?.startsWith('tag:') ?? false;
  const [tag, setTag] = useState(isTag ? value!.slice(4) : '');
  useEffect(() => setTag(isTag ? value!.slice(4) : ''), [value]);
  const id = `group-${index}`;
  return (
    <div class="field grouping">
      <label for={id}>{index === 0 ? 'Group by' : index === 1 ? 'Then by' : 'And by'}</label>
      <div class="inline">
        <select id={id} value={isTag ? 'tag' : (value ?? '')} onChange={(event) => {
          const selected = (event.target as HTMLSelectElement).value;
          onChange(selected === '' ? undefined : selected === 'tag' ? `tag:${tag || 'team:owner'}` : selected);
        }}>
          <option value="">{index === 0 ? 'Nothing (total)' : '—'}</option>
          {DIMENSIONS.map(([dimension, label]) => (
            <option value={dimension} key={dimension}>
              {label}
            </option>
          ))}
          <option value="tag">Tag…</option>
        </select>
        {isTag && (
          <input
            aria-label={`Tag to group by (group:key), grouping ${index + 1}`}
            class="mono tag-input"
            value={tag}
            placeholder="group:key"
            onChange={(event) => onChange(`tag:${(event.target as HTMLInputElement).value}`)}
          />
        )}
      </div>
    </div>
  );
}

function CostTable({ costs }: { costs: Costs }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label="Costs per series and bucket">
      <table class="table dense" data-testid="explorer-table">
        <thead>
          <tr>
            <th scope="col">{costs.groupBy.length ? costs.groupBy.map(dimensionLabel).join(' · ') : 'Series'}</th>
            {costs.buckets.map((bucket) => (
              <th scope="col" class="num" key={bucket}>
                {bucketLabel(bucket)}
              </th>
            ))}
            <th scope="col" class="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {costs.series.map((series) => (
            <tr key={JSON.stringify(series.key)} class={series.other ? 'other' : ''}>
              <th scope="row">{seriesLabel(series.key, series.other)}</th>
              {series.values.map((value, index) => (
                <td class="num" key={index}>
                  {value === 0 ? <span class="muted">–</span> : money(value, costs.currency ?? series.key.billingCurrency)}
                </td>
              ))}
              <td class="num strong">{money(series.total, costs.currency ?? series.key.billingCurrency)}</td>
            </tr>
          ))}
        </tbody>
        {costs.currency !== null && (
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {costs.totals.map((value, index) => (
                <td class="num" key={index}>
                  {value === 0 ? <span class="muted">–</span> : money(value, costs.currency)}
                </td>
              ))}
              <td class="num strong" data-testid="explorer-total">
                {money(costs.total, costs.currency)}
              </td>
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}

export default function Explorer() {
  const me = useMe();
  const location = useLocation();
  const view = viewOf(location.query);
  const setView = (changes: Partial<View>) => location.route(urlOf({ ...view, ...changes }), true);
  const [filterDraft, setFilterDraft] = useState(view.filter);
  const [copied, setCopied] = useState(false);
  const lastGood = useRef<Costs>();

  // live validation: the filter is sent 400 ms after the last keystroke
  useEffect(() => {
    if (filterDraft === view.filter) return;
    const timer = setTimeout(() => setView({ filter: filterDraft }), 400);
    return () => clearTimeout(timer);
  }, [filterDraft]);

  // a user in no team may read nothing (the API says 403 TEAM_REQUIRED): the page says why instead
  const reason = noVisibilityReason(me);
  const costs = useApi(
    () => (reason ? Promise.resolve(undefined) : unwrap(costasset.GET('/api/costasset/v1/costs', { params: { query: apiQuery(view) } }))),
    [location.url],
  );
  if (costs.data) lastGood.current = costs.data;
  const shown = costs.data ?? (costs.error?.position !== undefined ? lastGood.current : undefined);
  const option = useMemo(() => (shown ? stackedCostOption(shown, view.chart) : undefined), [shown, view.chart]);
  const csv = useAction(() => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(apiQuery(view))) query.set(key, Array.isArray(value) ? value.join(',') : String(value));
    query.set('format', 'csv');
    return download('/api/costasset/v1/costs', query);
  });
  const day = view.granularity === 'day';

  const share = async () => {
    await navigator.clipboard?.writeText(location.url.startsWith('http') ? location.url : `${window.location.origin}${location.url}`).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };

  const groupings: (string | undefined)[] = [0, 1, 2].map((index) => view.groupBy[index]);
  const setGrouping = (index: number, value: string | undefined) => {
    const next = [...groupings];
    next[index] = value;
    setView({ groupBy: next.filter((entry): entry is string => entry !== undefined) });
  };

  if (reason)
    return (
      <div class="page">
        <PageHeader title="Cost explorer" subtitle="Slice costs by provider, service, account, region or any tag, over months or days." />
        <Card>
          <Empty title="No costs are visible to you">{reason}</Empty>
        </Card>
      </div>
    );
  return (
    <div class="page">
      <PageHeader
        title="Cost explorer"
        subtitle="Slice costs by provider, service, account, region or any tag, over months or days."
        actions={
          <>
            <button type="button" class="button secondary" onClick={share}>
              {copied ? 'Link copied' : 'Copy link'}
            </button>
            <button type="button" class="button primary" onClick={() => csv.run()} disabled={csv.busy || !shown}>
              {csv.busy ? 'Preparing…' : 'Download CSV'}
            </button>
          </>
        }
      />
      {csv.error && <ErrorBox error={csv.error} />}
      {costs.data && costs.data.series.length > 0 && (
        <div class="explorer-export" data-testid="explorer-focus-export">
          <FocusExportButtons query={exportQuery(view.filter, costs.data)} label={`FOCUS export: the line items of ${bucketLabel(monthOf(costs.data.from))} – ${bucketLabel(monthOf(costs.data.to))}${view.filter.trim() ? ' matching the filter' : ''}, as`} />
        </div>
      )}
      <Card class="controls">
        <div class="control-grid">
          {groupings.map((value, index) => (index === 0 || groupings[index - 1] !== undefined || value !== undefined ? <GroupingSelect key={index} index={index} value={value} onChange={(next) => setGrouping(index, next)} /> : null))}
          <div class="field">
            <label for="granularity">Granularity</label>
            <select id="granularity" value={view.granularity} onChange={(event) => {
              const next = (event.target as HTMLSelectElement).value as View['granularity'];
              const month = shown?.to && shown.to.length === 6 ? shown.to : undefined;
              setView({ granularity: next, from: next === 'day' && month ? month : '', to: next === 'day' && month ? month : '' });
            }}>
              <option value="month">Monthly</option>
              <option value="day">Daily</option>
            </select>
          </div>
          <div class="field">
            <label for="from">From</label>
            <input id="from" type={day ? 'date' : 'month'} value={toInput(view.from || shown?.from || '', day, false)} onChange={(event) => setView({ from: fromInput((event.target as HTMLInputElement).value, day), to: fromInput(toInput(view.to || shown?.to || '', day, true), day) })} />
          </div>
          <div class="field">
            <label for="to">To</label>
            <input id="to" type={day ? 'date' : 'month'} value={toInput(view.to || shown?.to || '', day, true)} onChange={(event) => setView({ to: fromInput((event.target as HTMLInputElement).value, day), from: fromInput(toInput(view.from || shown?.from || '', day, false), day) })} />
          </div>
          <div class="field">
            <label for="metric">Metric</label>
            <select id="metric" value={view.metric} onChange={(event) => setView({ metric: (event.target as HTMLSelectElement).value as View['metric'] })}>
              {METRICS.map(([value, label]) => (
                <option value={value} key={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="top">Series</label>
            <select id="top" value={String(view.top)} onChange={(event) => setView({ top: Number((event.target as HTMLSelectElement).value) })}>
              {[5, 10, 20, 50].map((top) => (
                <option value={String(top)} key={top}>
                  Top {top}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="chart-kind">Chart</label>
            <select id="chart-kind" value={view.chart} onChange={(event) => setView({ chart: (event.target as HTMLSelectElement).value as View['chart'] })}>
              <option value="bar">Stacked bars</option>
              <option value="area">Stacked area</option>
            </select>
          </div>
        </div>
        <ExpressionInput id="filter" label="Filter" value={filterDraft} onInput={setFilterDraft} onEnter={() => setView({ filter: filterDraft })} error={costs.error?.position !== undefined ? costs.error : undefined} placeholder="providerName == &quot;aws&quot;" hint={FILTER_HINT} />
      </Card>

      {costs.error && costs.error.position === undefined && <ErrorBox error={costs.error} onRetry={costs.reload} />}
      {!shown && !costs.error && <Loading label="Summing costs…" />}
      {shown && (
        <>
          <Card
            title={
              <>
                {shown.metric === 'cost' ? 'Cost' : METRICS.find(([value]) => value === shown.metric)?.[1]} {shown.granularity === 'day' ? 'per day' : 'per month'}
                <span class="muted small"> {bucketLabel(shown.from)} – {bucketLabel(shown.to)}</span>
              </>
            }
            actions={<span class="total-chip" data-testid="explorer-sum">{shown.currency ? money(shown.total, shown.currency) : 'several currencies'}</span>}
            class={costs.loading ? 'refreshing' : ''}
          >
            {shown.series.length === 0 ? (
              <Empty title="No costs match this view">Widen the period or change the filter.</Empty>
            ) : (
              option && <Chart option={option} height={360} label={`Stacked ${view.chart} chart of ${shown.groupBy.join(', ') || 'total cost'} from ${bucketLabel(shown.from)} to ${bucketLabel(shown.to)}`} />
            )}
          </Card>
          {shown.series.length > 0 && (
            <Card title="Breakdown">
              <CostTable costs={shown} />
            </Card>
          )}
        </>
      )}
    </div>
  );
}
