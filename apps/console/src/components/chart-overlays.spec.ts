import { describe, expect, it } from '@jest/globals';
import type { Anomaly, Costs, CostsForecast } from '../api/types';
import { anomalyMarks, anomalyMatches, bucketOfDay, forecastLayers, stackedTops } from './chart-overlays';
import { overlaidOption, overlayTooltip } from './overlay-option';

const costs = (buckets: string[], series: [Record<string, string | null>, number[], boolean?][], granularity = 'month'): Costs =>
  ({
    buckets,
    granularity,
    currency: 'USD',
    metric: 'cost',
    groupBy: Object.keys(series[0]?.[0] ?? {}),
    from: buckets[0],
    to: buckets[buckets.length - 1],
    series: series.map(([key, values, other]) => ({ key, values, total: values.reduce((a, b) => a + b, 0), other })),
    totals: [],
    total: 0,
  }) as unknown as Costs;

const interval = (period: string, forecast: number, spread = 10) => ({
  period,
  actual: 0,
  forecast,
  lower: forecast - spread,
  upper: forecast + spread,
});
const forecast = (series: [Record<string, string | null>, number, boolean?][]): CostsForecast =>
  ({
    asOf: '2026-06-20',
    metric: 'cost',
    currency: 'USD',
    groupBy: ['providerName'],
    series: series.map(([key, monthEnd, other]) => ({
      key,
      other,
      monthEnd: interval('202606', monthEnd),
      nextMonths: [interval('202607', monthEnd + 1), interval('202608', monthEnd + 2), interval('202609', monthEnd + 3)],
    })),
  }) as unknown as CostsForecast;

const anomaly = (day: string, dimensions: Record<string, string | null>, status: Anomaly['status'] = 'open') =>
  ({ id: `${day}-${dimensions.serviceName}`, day, dimensions, status, actual: 900, expected: 100, impact: 800, score: 9 }) as Anomaly;

describe('forecast layers', () => {
  const view = costs(
    ['202604', '202605', '202606'],
    [
      [{ providerName: 'aws' }, [100, 200, 50]],
      [{ providerName: 'gcp' }, [10, 20, 5]],
    ],
  );

  it('stacks the tops of the series as the chart does', () => {
    expect(stackedTops(view.series, 3)).toEqual([
      [100, 200, 50],
      [110, 220, 55],
    ]);
  });

  it('continues each series from the last complete month, stacked, over the month end and the next three months', () => {
    const layers = forecastLayers(
      view,
      forecast([
        [{ providerName: 'gcp' }, 30],
        [{ providerName: 'aws' }, 300],
      ]),
    )!;
    expect(layers.buckets).toEqual(['202604', '202605', '202606', '202607', '202608', '202609']);
    expect(layers.monthEnd).toBe('202606');
    const [aws, gcp] = layers.lines;
    expect(aws.series).toBe(0);
    expect(aws.points[0]).toBeNull();
    expect(aws.points[1]).toEqual({ top: 200, forecast: 200, lower: 200, upper: 200, actual: true });
    expect(aws.points[2]).toEqual({ top: 300, forecast: 300, lower: 290, upper: 310 });
    expect(gcp.points[1]).toMatchObject({ top: 220, actual: true });
    expect(gcp.points[2]).toEqual({ top: 330, forecast: 30, lower: 20, upper: 40 });
    expect(gcp.points[5]).toEqual({ top: 303 + 33, forecast: 33, lower: 23, upper: 43 });
  });

  it('draws nothing for days, a range that ends before the forecast, or no data', () => {
    const f = forecast([[{ providerName: 'aws' }, 300]]);
    expect(forecastLayers({ ...view, granularity: 'day' } as Costs, f)).toBeUndefined();
    expect(forecastLayers(costs(['202601', '202602'], [[{ providerName: 'aws' }, [1, 2]]]), f)).toBeUndefined();
    expect(forecastLayers(view, { ...f, asOf: null, series: [] } as unknown as CostsForecast)).toBeUndefined();
    expect(forecastLayers(view, forecast([[{ providerName: 'oci' }, 3]]))).toBeUndefined();
  });

  it('becomes dashed lines with bands in the chart option, the axis continued', () => {
    const layers = forecastLayers(view, forecast([[{ providerName: 'aws' }, 300]]));
    const option = overlaidOption(view, 'bar', layers) as unknown as { series: { id?: string; lineStyle?: { type?: string } }[] };
    const ids = option.series.map((series) => series.id);
    expect(ids).toEqual([undefined, undefined, 'band-base-0', 'band-0', 'forecast-0']);
    expect(option.series[4].lineStyle?.type).toBe('dashed');
    expect((overlaidOption(view, 'bar', layers) as { xAxis: { data: string[] } }).xAxis.data).toHaveLength(6);
  });
});

describe('anomaly marks', () => {
  const aws = { providerName: 'aws', billingAccountId: '1', serviceName: 'EC2' };

  it('matches a series when every grouped dimension has its value', () => {
    expect(anomalyMatches({ providerName: 'aws' }, aws)).toBe(true);
    expect(anomalyMatches({ providerName: 'aws', serviceName: 'S3' }, aws)).toBe(false);
    expect(anomalyMatches({ region: 'eu' }, aws)).toBe(false);
    expect(anomalyMatches({}, aws)).toBe(true);
    expect(bucketOfDay('2026-06-14', 'month')).toBe('202606');
    expect(bucketOfDay('2026-06-14', 'day')).toBe('2026-06-14');
  });

  it('puts one mark per series and bucket at the top of its segment; Other takes the rest; dismissed ones are left out', () => {
    const view = costs(
      ['202605', '202606'],
      [
        [{ providerName: 'gcp' }, [5, 6]],
        [{ providerName: 'aws' }, [10, 20]],
        [{ providerName: null }, [1, 1], true],
      ],
    );
    const marks = anomalyMarks(view, [
      anomaly('2026-06-01', aws),
      anomaly('2026-06-03', { ...aws, serviceName: 'S3' }),
      anomaly('2026-06-04', aws, 'dismissed'),
      anomaly('2026-05-02', { ...aws, providerName: 'oci' }),
      anomaly('2026-01-02', aws),
    ]);
    expect(marks.map(({ series, bucket, top, anomalies }) => [series, bucket, top, anomalies.length])).toEqual([
      [1, 1, 26, 2],
      [2, 0, 16, 1],
    ]);
  });

  it('marks nothing when the chart groups by a dimension anomalies do not have', () => {
    const view = costs(['202606'], [[{ region: 'eu' }, [5]]]);
    expect(anomalyMarks(view, [anomaly('2026-06-01', aws)])).toEqual([]);
  });

  it('reads anomalies and forecasts in the tooltip, never the bands', () => {
    const text = overlayTooltip(
      [
        { seriesId: 'x', seriesName: 'aws', marker: '', axisValueLabel: 'Jun 2026', value: 5, data: 5 },
        { seriesId: 'band-0', seriesName: 'aws forecast low', marker: '', value: 1, data: 1 },
        { seriesId: 'forecast-0', seriesName: 'aws <b>', marker: '', value: 9, data: { top: 9, forecast: 9, lower: 8, upper: 10 } },
        { seriesId: 'anomalies', seriesName: 'Anomalies', marker: '', value: [0, 1], data: { anomalies: [anomaly('2026-06-01', aws)] } },
      ],
      'USD',
    );
    expect(text).toBe(
      '<strong>Jun 2026</strong><br>aws: $5.00<br>aws &#60;b&#62;: $9.00 (80%: $8.00 – $10.00)<br>' +
        'Anomaly: aws / 1 / EC2 on 2026-06-01: $900.00 against $100.00 expected (+$800.00)',
    );
  });
});
