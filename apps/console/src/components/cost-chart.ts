import type { Costs } from '../api/types';
import { OTHER_COLOR, PALETTE } from './palette';
import { bucketLabel, money, seriesLabel } from './format';

/** A stacked bar (or area) chart of a cost explorer answer: one stack per bucket, one colour per series. */
export function stackedCostOption(costs: Costs, kind: 'bar' | 'area' = 'bar') {
  const currency = costs.currency;
  return {
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      valueFormatter: (value: number) => money(value, currency),
    },
    legend: { type: 'scroll', bottom: 0, icon: 'roundRect', itemWidth: 12, itemHeight: 12 },
    grid: { left: 8, right: 16, top: 16, bottom: 40, containLabel: true },
    xAxis: { type: 'category', data: costs.buckets.map((bucket) => bucketLabel(bucket)), axisTick: { alignWithLabel: true } },
    yAxis: {
      type: 'value',
      axisLabel: { formatter: (value: number) => money(value, currency, true) },
      splitLine: { lineStyle: { color: '#e2e8f0' } },
    },
    series: costs.series.map((series, index) => ({
      name: seriesLabel(series.key, series.other),
      type: kind === 'area' ? 'line' : 'bar',
      stack: 'total',
      barMaxWidth: 48,
      ...(kind === 'area' ? { areaStyle: { opacity: 0.85 }, smooth: false, symbol: 'none', lineStyle: { width: 1 } } : {}),
      itemStyle: { color: series.other ? OTHER_COLOR : PALETTE[index % PALETTE.length] },
      emphasis: { focus: 'series' },
      data: series.values,
    })),
  };
}

/** A doughnut of series totals (spend by provider). */
export function shareOption(costs: Costs, bucketIndex?: number) {
  const currency = costs.currency;
  return {
    tooltip: { trigger: 'item', valueFormatter: (value: number) => money(value, currency) },
    legend: {
      orient: 'vertical',
      right: 8,
      top: 'middle',
      icon: 'circle',
      formatter: (name: string) => (name.length > 22 ? `${name.slice(0, 21)}…` : name),
    },
    series: [
      {
        type: 'pie',
        radius: ['52%', '78%'],
        center: ['34%', '50%'],
        avoidLabelOverlap: true,
        label: { show: false },
        itemStyle: { borderColor: '#fff', borderWidth: 2 },
        data: costs.series.map((series, index) => ({
          name: seriesLabel(series.key, series.other),
          value: bucketIndex === undefined ? series.total : series.values[bucketIndex],
          itemStyle: { color: series.other ? OTHER_COLOR : PALETTE[index % PALETTE.length] },
        })),
      },
    ],
  };
}
