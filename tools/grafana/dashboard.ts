import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkQuery, ExportedSeriesByService, SelectedSeries } from './promql-check';

interface DataSourceRef {
  type?: string;
  uid?: string;
}

export interface Panel {
  id?: number;
  type: string;
  title: string;
  datasource?: DataSourceRef;
  targets?: { refId?: string; expr?: string; datasource?: DataSourceRef }[];
  /** The panels of a collapsed row. */
  panels?: Panel[];
}

export interface Variable {
  name: string;
  type: string;
  datasource?: DataSourceRef;
  query?: unknown;
  definition?: string;
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
}

export const DASHBOARDS_DIRECTORY = join(__dirname, '..', '..', 'deploy', 'grafana', 'dashboards');

/** Every dashboard the provisioning loads, by file name (`authz.json`). */
export function provisionedDashboards(): Map<string, Dashboard> {
  const files = readdirSync(DASHBOARDS_DIRECTORY).filter((file) => file.endsWith('.json'));
  return new Map(files.map((file) => [file, JSON.parse(readFileSync(join(DASHBOARDS_DIRECTORY, file), 'utf8')) as Dashboard]));
}

/** The panels, those inside collapsed rows included. */
export function panelsOf(dashboard: Dashboard): Panel[] {
  return dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

/** The data source variable every panel and query variable reads through. */
const DATA_SOURCE = { type: 'prometheus', uid: '${datasource}' };
const readsDataSource = (ref?: DataSourceRef) => ref?.type === DATA_SOURCE.type && ref.uid === DATA_SOURCE.uid;

/** Grafana's `label_values(selector, label)`: the selector's series and the label asked of them. */
const LABEL_VALUES = /^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/;

export interface DashboardCheck {
  selected: SelectedSeries[];
  problems: string[];
}

/**
 * What must hold of a provisioned dashboard: unique panel ids, every panel and query on the
 * `$datasource` variable, a query on every panel but rows, `rate`/`increase` over
 * `$__rate_interval` (or the whole time range) and every query reading series and labels the
 * services export (see `checkQuery`); so do the variables' `label_values`.
 */
export function checkDashboard(dashboard: Dashboard, exported: ExportedSeriesByService): DashboardCheck {
  const result: DashboardCheck = { selected: [], problems: [] };
  const problem = (where: string, text: string) => result.problems.push(`${dashboard.uid}, ${where}: ${text}`);
  const readQuery = (where: string, query: string) => {
    const check = checkQuery(query, exported);
    result.selected.push(...check.selected);
    check.problems.forEach((text) => problem(where, text));
    for (const range of check.rateRanges)
      if (range !== '$__rate_interval' && range !== '$__range') problem(where, `rate over [${range}], not [$__rate_interval]`);
  };

  if (!dashboard.templating.list.some((variable) => variable.name === 'datasource' && variable.type === 'datasource'))
    problem('templating', 'no $datasource variable');
  for (const variable of dashboard.templating.list.filter((variable) => variable.type === 'query')) {
    if (!readsDataSource(variable.datasource)) problem(`$${variable.name}`, 'not on the $datasource variable');
    const labelValues = LABEL_VALUES.exec(variable.definition ?? '');
    if (!labelValues) {
      problem(`$${variable.name}`, `"${variable.definition}" is not label_values(selector, label)`);
      continue;
    }
    // the label must be on the selector's series, as it must be on a `by`
    readQuery(`$${variable.name}`, `count by (${labelValues[2]}) (${labelValues[1]})`);
  }

  const ids = new Set<number>();
  for (const panel of panelsOf(dashboard)) {
    const where = `panel "${panel.title}"`;
    if (typeof panel.id !== 'number') problem(where, 'no id');
    else if (ids.has(panel.id)) problem(where, `id ${panel.id} is another panel's`);
    else ids.add(panel.id);
    if (panel.type === 'row') continue;
    if (!readsDataSource(panel.datasource)) problem(where, 'not on the $datasource variable');
    if (!panel.targets?.length) problem(where, 'no query');
    const refIds = new Set<string>();
    for (const target of panel.targets ?? []) {
      if (target.datasource && !readsDataSource(target.datasource)) problem(where, `query ${target.refId} not on the $datasource variable`);
      if (!target.refId || refIds.has(target.refId)) problem(where, `query ${target.refId} needs a refId of its own`);
      refIds.add(target.refId ?? '');
      if (!target.expr) problem(where, `query ${target.refId} has no expression`);
      else readQuery(where, target.expr);
    }
  }
  return result;
}
