import { useLocation } from 'preact-iso';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { costasset, download, unwrap } from '../api/client';
import type { Costs, CostSeries } from '../api/types';
import { noVisibilityReason, useMe } from '../auth/me';
import { Chart } from '../components/chart';
import { stackedCostOption } from '../components/cost-chart';
import { type Column, DataTable } from '../components/data-table';
import { splitProblem } from '../components/expression';
import { FocusExportButtons } from '../components/focus-export';
import { bucketLabel, money, seriesLabel } from '../components/format';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, Empty, ErrorBox } from '../components/states';
import { useAction, useApi } from '../components/use-api';
import { ExplorerControls } from './explorer-controls';
import { apiQuery, dimensionLabel, exportQuery, METRICS, monthOf, urlOf, type View, viewOf } from './explorer-view';

const TITLE = 'Cost explorer';
const SUBTITLE = 'Slice costs by provider, service, account, region or any tag, over months or days.';

const amount = (value: number, currency: string | null | undefined) =>
  value === 0 ? <span class="muted">–</span> : money(value, currency);

function CostTable({ costs }: { costs: Costs }) {
  const columns = useMemo((): Column<CostSeries>[] => {
    const currency = (series: CostSeries) => costs.currency ?? series.key.billingCurrency;
    return [
      {
        key: 'series',
        header: costs.groupBy.length ? costs.groupBy.map(dimensionLabel).join(' · ') : 'Series',
        value: (series) => seriesLabel(series.key, series.other),
        rowHeader: true,
      },
      ...costs.buckets.map((bucket, index): Column<CostSeries> => ({
        key: bucket,
        header: bucketLabel(bucket),
        value: (series) => series.values[index],
        format: 'money',
        cell: (series) => amount(series.values[index], currency(series)),
      })),
      { key: 'total', header: 'Total', value: (series) => series.total, format: 'money', currency, class: 'strong' },
    ];
  }, [costs]);
  const footer =
    costs.currency === null
      ? undefined
      : [
          'Total',
          ...costs.totals.map((value) => amount(value, costs.currency)),
          <span data-testid="explorer-total">{money(costs.total, costs.currency)}</span>,
        ];
  return (
    <DataTable
      label="Costs per series and bucket"
      testId="explorer-table"
      dense
      rows={costs.series}
      columns={columns}
      rowKey={(series) => JSON.stringify(series.key)}
      rowProps={(series) => ({ class: series.other ? 'other' : undefined })}
      footer={footer}
    />
  );
}

function Results({ shown, view, refreshing }: { shown: Costs; view: View; refreshing: boolean }) {
  const option = useMemo(() => stackedCostOption(shown, view.chart), [shown, view.chart]);
  const title = (
    <>
      {shown.metric === 'cost' ? 'Cost' : METRICS.find(([value]) => value === shown.metric)?.[1]}{' '}
      {shown.granularity === 'day' ? 'per day' : 'per month'}
      <span class="muted small">
        {' '}
        {bucketLabel(shown.from)} – {bucketLabel(shown.to)}
      </span>
    </>
  );
  const sum = (
    <span class="total-chip" data-testid="explorer-sum">
      {shown.currency ? money(shown.total, shown.currency) : 'several currencies'}
    </span>
  );
  return (
    <>
      <Card title={title} actions={sum} class={refreshing ? 'refreshing' : ''}>
        {shown.series.length === 0 ? (
          <Empty title="No costs match this view">Widen the period or change the filter.</Empty>
        ) : (
          <Chart
            option={option}
            height={360}
            label={
              `Stacked ${view.chart} chart of ${shown.groupBy.join(', ') || 'total cost'} ` +
              `from ${bucketLabel(shown.from)} to ${bucketLabel(shown.to)}`
            }
          />
        )}
      </Card>
      {shown.series.length > 0 && (
        <Card title="Breakdown">
          <CostTable costs={shown} />
        </Card>
      )}
    </>
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
  const problem = splitProblem(costs.error);
  // while the filter does not parse, the last good answer stays on screen
  const shown = costs.data ?? (problem.expression ? lastGood.current : undefined);
  const csv = useAction(() => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(apiQuery(view))) query.set(key, Array.isArray(value) ? value.join(',') : String(value));
    query.set('format', 'csv');
    return download('/api/costasset/v1/costs', query);
  });
  const share = async () => {
    await navigator.clipboard
      ?.writeText(location.url.startsWith('http') ? location.url : `${window.location.origin}${location.url}`)
      .catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };

  if (reason)
    return (
      <Page title={TITLE} subtitle={SUBTITLE}>
        <Card>
          <Empty title="No costs are visible to you">{reason}</Empty>
        </Card>
      </Page>
    );
  const actions = (
    <>
      <button type="button" class="button secondary" onClick={share}>
        {copied ? 'Link copied' : 'Copy link'}
      </button>
      <button type="button" class="button primary" onClick={() => csv.run()} disabled={csv.busy || !shown}>
        {csv.busy ? 'Preparing…' : 'Download CSV'}
      </button>
    </>
  );
  const range = costs.data && `${bucketLabel(monthOf(costs.data.from))} – ${bucketLabel(monthOf(costs.data.to))}`;
  return (
    <Page title={TITLE} subtitle={SUBTITLE} actions={actions}>
      {csv.error && <ErrorBox error={csv.error} />}
      {costs.data && costs.data.series.length > 0 && (
        <div class="explorer-export" data-testid="explorer-focus-export">
          <FocusExportButtons
            query={exportQuery(view.filter, costs.data)}
            label={`FOCUS export: the line items of ${range}${view.filter.trim() ? ' matching the filter' : ''}, as`}
          />
        </div>
      )}
      <ExplorerControls
        view={view}
        shown={shown}
        setView={setView}
        filterDraft={filterDraft}
        setFilterDraft={setFilterDraft}
        problem={problem.expression}
      />
      <Loaded state={{ ...costs, data: shown, error: problem.other }} label="Summing costs…">
        {(data) => <Results shown={data} view={view} refreshing={costs.loading} />}
      </Loaded>
    </Page>
  );
}
