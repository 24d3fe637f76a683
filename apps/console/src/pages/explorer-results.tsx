import { useMemo } from 'preact/hooks';
import type { Anomaly, Costs, CostSeries, CostsForecast } from '../api/types';
import { Chart } from '../components/chart';
import { anomalyMarks, forecastLayers } from '../components/chart-overlays';
import { type Column, DataTable } from '../components/data-table';
import { bucketLabel, money, seriesLabel } from '../components/format';
import { overlaidOption } from '../components/overlay-option';
import { Card, Empty } from '../components/states';
import { dimensionLabel, METRICS, type View } from './explorer-view';

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

/** What the chart's overlays show, in words (and for tests: how many lines and marks are drawn). */
function OverlayNote({
  shown,
  lines,
  marks,
  asOf,
  monthEnd,
}: {
  shown: Costs;
  lines: number;
  marks: number;
  asOf?: string;
  monthEnd?: string;
}) {
  if (!lines && !marks) return null;
  return (
    <p class="muted small chart-note" data-testid="overlay-note" data-forecast-lines={lines} data-anomaly-marks={marks}>
      {lines > 0 && asOf && monthEnd && (
        <>
          Dashed: the forecast of {lines === 1 ? 'the series' : `${lines} series`} to the end of {bucketLabel(monthEnd, true)} and the
          months after, from the data up to {asOf}; the shaded band is its 80% interval.{' '}
        </>
      )}
      {marks > 0 && (
        <>
          Red triangles: {marks === 1 ? 'a bucket' : `${marks} buckets`} with cost anomalies (hover for details,{' '}
          <a href="/anomalies">all anomalies</a>).
        </>
      )}
      {shown.groupBy.length > 0 && marks > 0 && ' Anomalies are matched to series by their provider, account and service.'}
    </p>
  );
}

export function Results({
  shown,
  view,
  refreshing,
  forecast,
  anomalies,
}: {
  shown: Costs;
  view: View;
  refreshing: boolean;
  forecast?: CostsForecast;
  anomalies?: Anomaly[];
}) {
  // a forecast of another metric or grouping (the view changed, its answer not in yet) is not drawn
  const fits = forecast && forecast.metric === shown.metric && forecast.groupBy.join() === shown.groupBy.join();
  const layers = useMemo(() => (fits ? forecastLayers(shown, forecast) : undefined), [shown, forecast, fits]);
  const marks = useMemo(() => anomalyMarks(shown, anomalies), [shown, anomalies]);
  const option = useMemo(() => overlaidOption(shown, view.chart, layers, marks), [shown, view.chart, layers, marks]);
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
        <OverlayNote shown={shown} lines={layers?.lines.length ?? 0} marks={marks.length} asOf={layers?.asOf} monthEnd={layers?.monthEnd} />
      </Card>
      {shown.series.length > 0 && (
        <Card title="Breakdown">
          <CostTable costs={shown} />
        </Card>
      )}
    </>
  );
}
