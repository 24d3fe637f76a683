import type { Anomaly, Costs } from '../api/types';
import { OTHER_COLOR, PALETTE } from './palette';
import type { AnomalyMark, ForecastLayers, ForecastPoint } from './chart-overlays';
import { stackedCostOption } from './cost-chart';
import { bucketLabel, money, seriesLabel } from './format';

const ANOMALY_COLOR = '#dc2626';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** One line of an anomaly, as its tooltip and the explorer's note read it. */
export function anomalyText(anomaly: Anomaly, currency: string | null | undefined): string {
  const series = [anomaly.dimensions.providerName, anomaly.dimensions.billingAccountId, anomaly.dimensions.serviceName]
    .map((value) => value ?? '(none)')
    .join(' / ');
  return (
    `${series} on ${anomaly.day}: ${money(anomaly.actual, currency)} against ${money(anomaly.expected, currency)} ` +
    `expected (+${money(anomaly.impact, currency)})`
  );
}

interface TooltipParam {
  seriesId?: string;
  seriesName: string;
  marker: string;
  axisValueLabel?: string;
  value: unknown;
  data: unknown;
}

/** The axis tooltip: each series' own value, a forecast with its interval, anomalies in words; the bands say nothing. */
export function overlayTooltip(params: TooltipParam[], currency: string | null | undefined): string {
  const lines = [`<strong>${escapeHtml(params[0]?.axisValueLabel ?? '')}</strong>`];
  for (const param of params) {
    const id = param.seriesId ?? '';
    if (id.startsWith('band') || param.value === null || param.value === undefined) continue;
    const name = escapeHtml(param.seriesName);
    if (id.startsWith('forecast')) {
      const point = param.data as ForecastPoint;
      if (point.actual) continue;
      lines.push(
        `${param.marker}${name}: ${money(point.forecast, currency)} ` +
          `(80%: ${money(point.lower, currency)} – ${money(point.upper, currency)})`,
      );
    } else if (id === 'anomalies') {
      for (const anomaly of (param.data as { anomalies: Anomaly[] }).anomalies)
        lines.push(`${param.marker}Anomaly: ${escapeHtml(anomalyText(anomaly, currency))}`);
    } else if (typeof param.value === 'number') lines.push(`${param.marker}${name}: ${money(param.value, currency)}`);
  }
  return lines.join('<br>');
}

const colorOf = (costs: Costs, index: number) => (costs.series[index].other ? OTHER_COLOR : PALETTE[index % PALETTE.length]);

function forecastSeries(costs: Costs, layers: ForecastLayers) {
  return layers.lines.flatMap((line) => {
    const color = colorOf(costs, line.series);
    const name = `${seriesLabel(costs.series[line.series].key, costs.series[line.series].other)} forecast`;
    const quiet = { type: 'line', symbol: 'none', silent: true, lineStyle: { opacity: 0 }, z: 1 };
    const at = (point: ForecastPoint | null, value: (point: ForecastPoint) => number) => (point ? value(point) : null);
    return [
      {
        ...quiet,
        id: `band-base-${line.series}`,
        name: `${name} low`,
        stack: `band-${line.series}`,
        data: line.points.map((point) => at(point, (one) => one.top - one.forecast + one.lower)),
      },
      {
        ...quiet,
        id: `band-${line.series}`,
        name: `${name} 80% interval`,
        stack: `band-${line.series}`,
        areaStyle: { color, opacity: 0.16 },
        data: line.points.map((point) => at(point, (one) => one.upper - one.lower)),
      },
      {
        id: `forecast-${line.series}`,
        name,
        type: 'line',
        symbol: 'circle',
        symbolSize: 6,
        z: 4,
        lineStyle: { type: 'dashed', width: 2, color },
        itemStyle: { color },
        data: line.points.map((point) => (point ? { ...point, value: point.top } : null)),
      },
    ];
  });
}

/**
 * The explorer's stacked chart with its overlays: the x axis continued by the forecast months,
 * each series' forecast as a dashed line on top of its stack with its 80% interval as a band, and
 * the anomalies as red triangles on their series' segment.
 */
export function overlaidOption(costs: Costs, kind: 'bar' | 'area', layers?: ForecastLayers, marks: AnomalyMark[] = []) {
  const base = stackedCostOption(costs, kind);
  if (!layers && marks.length === 0) return base;
  const buckets = layers?.buckets ?? costs.buckets;
  const names = costs.series.map((series) => seriesLabel(series.key, series.other));
  const anomalies = marks.length
    ? [
        {
          id: 'anomalies',
          name: 'Anomalies',
          type: 'scatter',
          symbol: 'triangle',
          symbolSize: 13,
          z: 5,
          itemStyle: { color: ANOMALY_COLOR, borderColor: '#fff', borderWidth: 1 },
          data: marks.map((mark) => ({ value: [mark.bucket, mark.top], anomalies: mark.anomalies })),
        },
      ]
    : [];
  return {
    ...base,
    tooltip: {
      ...base.tooltip,
      formatter: (params: TooltipParam[]) => overlayTooltip(params, costs.currency),
    },
    legend: { ...base.legend, data: [...names, ...(marks.length ? ['Anomalies'] : [])] },
    xAxis: { ...base.xAxis, data: buckets.map((bucket) => bucketLabel(bucket)) },
    series: [...base.series, ...(layers ? forecastSeries(costs, layers) : []), ...anomalies],
  };
}
