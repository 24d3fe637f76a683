import { useMemo, useRef, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { BudgetaryUnit, Costs, CostSeries } from '../api/types';
import { noVisibilityReason, useMe } from '../auth/me';
import { Chart } from '../components/chart';
import { shareOption, stackedCostOption } from '../components/cost-chart';
import { bucketLabel, money, percent } from '../components/format';
import { type Column, DataTable } from '../components/data-table';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, Empty } from '../components/states';
import { type ApiState, useApi } from '../components/use-api';
import { AnomalyWatch, ForecastKpi } from './overview-alerts';
import { overviewTrend } from './overview-data';

const INTERACTIVE_MARK = 'corelite:overview-interactive';

function Kpi({
  label,
  value,
  detail,
  tone,
  testId,
}: {
  label: string;
  value: string;
  detail?: string;
  tone?: 'up' | 'down';
  testId?: string;
}) {
  return (
    <div class="kpi">
      <div class="kpi-label">{label}</div>
      <div class="kpi-value" data-testid={testId}>
        {value}
      </div>
      {detail && <div class={`kpi-detail ${tone ?? ''}`}>{detail}</div>}
    </div>
  );
}

/** Budgets of the latest month, those nearest (or past) their thresholds first. */
function BudgetWatch({ units, period }: { units: BudgetaryUnit[]; period: string }) {
  const rows = units
    .filter((unit) => unit.period === period)
    .sort((a, b) => b.percentUsed - a.percentUsed)
    .slice(0, 5);
  if (rows.length === 0) return <Empty title={`No budget covers ${bucketLabel(period, true)}.`}>Create one on the Budgets page.</Empty>;
  return (
    <ul class="budget-watch">
      {rows.map((unit) => {
        const next = [...unit.thresholdsCrossed].length ? Math.max(...unit.thresholdsCrossed) : undefined;
        const tone = unit.percentUsed >= 100 ? 'bad' : unit.percentUsed >= 80 ? 'warn' : 'ok';
        return (
          <li key={unit.budgetId}>
            <div class="budget-watch-head">
              <a href={`/budgets?budget=${encodeURIComponent(unit.budgetId)}`}>{unit.name}</a>
              <span class={`badge ${tone}`}>{percent(unit.percentUsed, 0)} used</span>
            </div>
            <div
              class="meter"
              role="meter"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(unit.percentUsed)}
              aria-label={`${unit.name}: ${percent(unit.percentUsed, 0)} of the budget used`}
            >
              <span class={tone} style={{ width: `${Math.min(unit.percentUsed, 100)}%` }} />
            </div>
            <div class="muted small">
              {money(unit.actual, unit.currency)} of {money(unit.amount, unit.currency)}
              {next !== undefined ? ` · ${next}% threshold crossed` : ''}
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/** The trend from the first month with costs (at least six months shown), not a row of empty months. */
function fromFirstCost(costs: Costs): Costs {
  const first = Math.min(
    costs.totals.findIndex((total) => total !== 0),
    Math.max(costs.buckets.length - 6, 0),
  );
  if (first <= 0) return costs;
  return {
    ...costs,
    from: costs.buckets[first],
    buckets: costs.buckets.slice(first),
    totals: costs.totals.slice(first),
    series: costs.series.map((series) => ({ ...series, values: series.values.slice(first) })),
  };
}

const NO_DATA = (
  <>
    Upload a provider's billing data on the <a href="/data">Data</a> page to see it here.
  </>
);

const SERVICE_COLUMNS: Column<CostSeries & { share?: number; currency: string | null }>[] = [
  { key: 'service', header: 'Service', value: (series) => (series.other ? 'Other services' : (series.key.serviceName ?? '(none)')) },
  { key: 'cost', header: 'Cost', value: (series) => series.total, format: 'money', currency: (series) => series.currency },
  { key: 'share', header: 'Share', value: (series) => series.share, format: 'percent' },
  { key: 'lineItems', header: 'Line items', value: (series) => series.lineItems, format: 'number' },
];

function TopServices({ costs }: { costs: Costs }) {
  const rows = useMemo(
    () =>
      costs.series.map((series) => ({
        ...series,
        currency: costs.currency,
        share: costs.total ? (series.total / costs.total) * 100 : undefined,
      })),
    [costs],
  );
  return (
    <DataTable
      label="Top services"
      rows={rows}
      columns={SERVICE_COLUMNS}
      rowKey={(series) => JSON.stringify(series.key)}
      csv={`top services ${costs.to}`}
    />
  );
}

/** The figures of the latest month, the trend, the shares, the budgets and the top services. */
function Figures({
  costs,
  budgets,
  services,
  onChartDrawn,
}: {
  costs: Costs;
  budgets: ApiState<BudgetaryUnit[] | undefined>;
  services: ApiState<Costs | undefined>;
  onChartDrawn: () => void;
}) {
  const trendOption = useMemo(() => stackedCostOption(fromFirstCost(costs)), [costs]);
  const shares = useMemo(() => shareOption(costs, costs.buckets.length - 1), [costs]);
  const last = costs.buckets.length - 1;
  const thisMonth = costs.totals[last] ?? 0;
  const lastMonth = costs.totals[last - 1] ?? 0;
  const change = lastMonth !== 0 ? ((thisMonth - lastMonth) / Math.abs(lastMonth)) * 100 : undefined;
  const months = costs.totals.filter((value) => value !== 0).length || 1;
  const previous = bucketLabel(costs.buckets[last - 1]);
  const flat = change === undefined || Math.abs(change) < 0.05;
  return (
    <>
      <div class="kpis">
        <Kpi
          label={bucketLabel(costs.to, true)}
          value={money(thisMonth, costs.currency)}
          testId="month-total"
          detail={
            change === undefined
              ? 'no data the month before'
              : flat
                ? `no change vs ${previous}`
                : `${change > 0 ? '▲' : '▼'} ${percent(Math.abs(change))} vs ${previous}`
          }
          tone={flat ? undefined : change! > 0 ? 'up' : 'down'}
        />
        <ForecastKpi ready />
        <Kpi
          label={bucketLabel(costs.buckets[last - 1] ?? costs.to, true)}
          value={money(lastMonth, costs.currency)}
          testId="previous-month-total"
          detail="previous month"
        />
        <Kpi
          label="Last 12 months"
          value={money(costs.total, costs.currency)}
          detail={`${money(costs.total / months, costs.currency)} per month on average`}
        />
        <Kpi
          label="Providers"
          value={String(costs.series.filter((series) => !series.other).length)}
          detail={costs.series
            .slice(0, 3)
            .map((series) => series.key.providerName ?? 'other')
            .join(', ')}
        />
      </div>
      <div class="grid two">
        <Card
          title="Spend trend by provider"
          class="span-2"
          actions={
            <a class="button ghost" href="/explorer?groupBy=providerName">
              Explore
            </a>
          }
        >
          <Chart
            option={trendOption}
            label={`Monthly cost by provider, ${bucketLabel(costs.from)} to ${bucketLabel(costs.to)}`}
            onRendered={onChartDrawn}
          />
        </Card>
        <Card title={`Spend by provider, ${bucketLabel(costs.to)}`}>
          <Chart
            option={shares}
            height={260}
            label={`Share of each provider in ${bucketLabel(costs.to, true)}`}
            onRendered={onChartDrawn}
          />
        </Card>
        <Card
          title="Budgets nearest their thresholds"
          actions={
            <a class="button ghost" href="/budgets">
              All budgets
            </a>
          }
        >
          <Loaded state={budgets}>{(units) => <BudgetWatch units={units} period={costs.to} />}</Loaded>
        </Card>
        <AnomalyWatch ready currency={costs.currency} />
        <Card title={`Top services, ${bucketLabel(costs.to)}`}>
          <Loaded state={services}>{(top) => <TopServices costs={top} />}</Loaded>
        </Card>
      </div>
    </>
  );
}

export default function Overview() {
  const me = useMe();
  const [chartsDrawn, setChartsDrawn] = useState(0);
  const marked = useRef(false);
  // a user in no team may read nothing (the API says 403 TEAM_REQUIRED): the page says why instead
  const reason = noVisibilityReason(me);
  const trend = useApi(() => {
    if (reason) return Promise.resolve(undefined);
    // the overview always draws charts: fetch the chart library while the costs are summed
    void import('../components/echarts');
    return overviewTrend();
  }, []);
  const latest = trend.data?.to;
  // the secondary cards ask once the main figures are in, so that they never delay them
  const budgets = useApi(
    async () => (latest ? ((await unwrap(costasset.GET('/api/costasset/v1/budgetController/budgetaryUnits'))) ?? []) : undefined),
    [latest],
  );
  const services = useApi(
    async (): Promise<Costs | undefined> =>
      latest
        ? unwrap(
            costasset.GET('/api/costasset/v1/costs', { params: { query: { groupBy: ['serviceName'], from: latest, to: latest, top: 6 } } }),
          )
        : undefined,
    [latest],
  );

  const onChartDrawn = () => {
    setChartsDrawn((count) => count + 1);
  };

  const hasData = trend.data && trend.data.series.length > 0;
  const ready = trend.data !== undefined && (!hasData || chartsDrawn >= 2);
  if (ready && !marked.current) {
    marked.current = true;
    performance.mark(INTERACTIVE_MARK);
  }

  const subtitle =
    latest && trend.data?.series.length
      ? `Costs up to ${bucketLabel(latest, true)}, the latest month with data`
      : 'Your cloud costs at a glance';
  return (
    <Page title="Overview" subtitle={subtitle} testId="overview" ready={Boolean(reason) || ready}>
      {reason ? (
        <Card>
          <Empty title="No costs are visible to you">{reason}</Empty>
        </Card>
      ) : (
        <Loaded
          state={trend}
          label="Loading costs…"
          empty={{ title: 'No cost data yet', body: NO_DATA, card: true, when: (costs) => !costs?.series.length }}
        >
          {(costs) => <Figures costs={costs} budgets={budgets} services={services} onChartDrawn={onChartDrawn} />}
        </Loaded>
      )}
    </Page>
  );
}
