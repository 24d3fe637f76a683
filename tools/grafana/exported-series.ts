import type { Metrics } from '@lib/metrics';
import type { ExportedSeries } from './promql-check';

/** The labels Prometheus adds to every series it scrapes (deploy/prometheus/prometheus.yml). */
export const TARGET_LABELS = ['job', 'instance'];

/** `{service="authz",queue="jobs"}` → the label names. */
function labelNamesOf(sampleLine: string): string[] {
  return [...(/\{(.*)\}/.exec(sampleLine)?.[1] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)].map((match) => match[1]);
}

/**
 * The series one service's `GET /metrics` serves, by name: every family its text declares
 * (`# TYPE`), split as Prometheus stores it (a histogram's `_bucket` with `le`, `_sum`, `_count`;
 * a summary's quantiles, `_sum` and `_count`), with the family's declared labels, the registry's
 * default labels and Prometheus' target labels.
 */
export async function exportedSeries(metrics: Metrics): Promise<Map<string, ExportedSeries>> {
  const text = await metrics.render();
  const families = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name, type }));
  // a gauge without labels of its own always has a sample: what it carries is on every series
  const inFlight = text.split('\n').find((line) => line.startsWith('corelite_http_requests_in_flight{')) ?? '';
  const everySeries = [...labelNamesOf(inFlight), ...TARGET_LABELS];
  const series = new Map<string, ExportedSeries>();
  for (const { name, type } of families) {
    // prom-client keeps a metric's configuration, its label names included, on the metric
    const declared = (metrics.registry.getSingleMetric(name) as unknown as { labelNames?: string[] } | undefined)?.labelNames ?? [];
    const labels = [...everySeries, ...declared];
    const add = (seriesName: string, extra: string[], monotonic: boolean) =>
      series.set(seriesName, { labels: new Set([...labels, ...extra]), monotonic });
    if (type === 'histogram') {
      add(`${name}_bucket`, ['le'], true);
      add(`${name}_sum`, [], true);
      add(`${name}_count`, [], true);
    } else if (type === 'summary') {
      add(name, ['quantile'], false);
      add(`${name}_sum`, [], true);
      add(`${name}_count`, [], true);
    } else {
      add(name, [], type === 'counter');
    }
  }
  return series;
}
