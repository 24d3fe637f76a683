import { getMetricsFromIterator, PromMetrics } from 'prom2javascript';

export type MetricFamilies = PromMetrics;

/**
 * `GET /metrics` of one service instance (its own address: the gateway does not publish it),
 * parsed with a Prometheus text-format parser (prom2javascript), which refuses any line
 * Prometheus could not read.
 */
export async function scrape(serviceUrl: string): Promise<MetricFamilies> {
  const res = await fetch(`${serviceUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return getMetricsFromIterator((await res.text()).split('\n')[Symbol.iterator]());
}

/**
 * The sum over the samples of `name` whose labels include `labels`: the values of a counter or a
 * gauge, the observation counts of a histogram. 0 when there is none.
 */
export function total(families: MetricFamilies, name: string, labels: Record<string, string> = {}): number {
  const samples = (families[name]?.data ?? []) as { labels: Record<string, string>; value?: number; count?: number }[];
  return samples
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + (sample.count ?? sample.value ?? 0), 0);
}
