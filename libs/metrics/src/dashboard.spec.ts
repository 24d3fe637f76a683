import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metrics } from './metrics';

const root = join(__dirname, '..', '..', '..');

/** The series names a Prometheus expression reads (`corelite_…`). */
function seriesOf(expression: string): string[] {
  return [...expression.matchAll(/\bcorelite_[a-z0-9_]+/g)].map((match) => match[0]);
}

describe('the Grafana dashboard of deploy/', () => {
  const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'dashboards', 'corelite.json'), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
    templating: { list: { definition?: string }[] };
  };

  it('reads only series the services export', async () => {
    const metrics = new Metrics('authz');
    metrics.watchQueueDepth('jobs', async () => ({ pending: 0, inProgress: 0 }));
    const families = (await metrics.registry.getMetricsAsJSON()).map((family) => ({ name: family.name, type: String(family.type) }));
    const exported = new Set(
      families.flatMap(({ name, type }) => (type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name])),
    );
    const expressions = [
      ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
      ...dashboard.templating.list.flatMap((variable) => (variable.definition ? [variable.definition] : [])),
    ];
    const read = [...new Set(expressions.flatMap(seriesOf))];
    expect(read.length).toBeGreaterThan(10);
    expect(read.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('has a query on every panel but the rows', () => {
    const empty = dashboard.panels.filter((panel) => (panel as { type?: string }).type !== 'row' && !panel.targets?.length);
    expect(empty.map((panel) => panel.title)).toEqual([]);
  });
});
