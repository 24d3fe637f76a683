import { Metrics } from '@lib/metrics';
import { checkDashboard, Dashboard, panelsOf, provisionedDashboards } from './dashboard';
import { exportedSeries } from './exported-series';
import { ExportedSeriesByService } from './promql-check';

/**
 * Each service's registry as PlatformModule builds it (`MetricsModule.forRoot(service)`), with the
 * work queue costasset watches. Every family is declared when the registry is made, so its
 * `/metrics` text names them all before anything is recorded.
 */
async function exportedByService(): Promise<ExportedSeriesByService> {
  const authz = new Metrics('authz');
  const costasset = new Metrics('costasset');
  costasset.watchQueueDepth('jobs', async () => ({ pending: 0, inProgress: 0 }));
  return new Map([
    ['authz', await exportedSeries(authz)],
    ['costasset', await exportedSeries(costasset)],
  ]);
}

const DATA_SOURCE = { type: 'prometheus', uid: '${datasource}' };

/** A dashboard of one panel, in the shape the provisioned ones have. */
function dashboardOf(...exprs: string[]): Dashboard {
  return {
    uid: 'test',
    title: 'test',
    schemaVersion: 40,
    templating: { list: [{ name: 'datasource', type: 'datasource' }] },
    panels: [
      {
        id: 1,
        type: 'timeseries',
        title: 'under test',
        datasource: DATA_SOURCE,
        targets: exprs.map((expr, i) => ({ refId: `Q${i}`, expr })),
      },
    ],
  };
}

describe('the Grafana dashboards of deploy/grafana', () => {
  const dashboards = provisionedDashboards();
  let exported: ExportedSeriesByService;
  beforeAll(async () => {
    exported = await exportedByService();
  });

  it('has one dashboard per service, besides the overview', () => {
    expect([...dashboards.keys()].sort()).toEqual(['authz.json', 'corelite.json', 'costasset.json']);
    expect(new Set([...dashboards.values()].map((dashboard) => dashboard.uid)).size).toBe(dashboards.size);
  });

  it.each([...dashboards.keys()])('%s reads only series and labels its services export, on unique panels with a data source', (file) => {
    const dashboard = dashboards.get(file)!;
    const check = checkDashboard(dashboard, exported);
    expect(check.problems).toEqual([]);
    expect(new Set(check.selected.map((selected) => selected.series)).size).toBeGreaterThan(10);
    expect(panelsOf(dashboard).length).toBeGreaterThan(15);
  });

  it.each(['authz', 'costasset'])('%s.json names its service in every query, and its instances are its own', (service) => {
    const dashboard = dashboards.get(`${service}.json`)!;
    expect(dashboard.schemaVersion).toBe(40); // what Grafana 11.3 (docker-compose.yml) writes
    const { selected } = checkDashboard(dashboard, exported);
    expect(selected.filter((series) => !series.service)).toEqual([]);
    const instance = dashboard.templating.list.find((variable) => variable.name === 'instance');
    expect(instance?.definition).toContain(`service="${service}"`);
  });

  it.each(['authz', 'costasset'])('%s.json shows routes, refusals, NATS, the store, the event loop and the caches', (service) => {
    const { selected } = checkDashboard(dashboards.get(`${service}.json`)!, exported);
    const read = new Set(selected.map((series) => series.series));
    const expected = [
      'corelite_http_request_duration_seconds_bucket',
      'corelite_http_admission_refusals_total',
      'corelite_nats_request_duration_seconds_bucket',
      'corelite_db_operation_duration_seconds_bucket',
      'corelite_nodejs_eventloop_lag_p99_seconds',
      'corelite_cache_requests_total',
      ...(service === 'costasset' ? ['corelite_jobs_finished_total', 'corelite_job_duration_seconds_bucket'] : []),
    ];
    expect(expected.filter((series) => !read.has(series))).toEqual([]);
  });

  describe('fails a dashboard that', () => {
    const problemsOf = (dashboard: Dashboard) => checkDashboard(dashboard, exported).problems;

    it('reads a series no service exports, or not the service it names', () => {
      expect(problemsOf(dashboardOf('sum by (route) (rate(corelite_http_requests_total{service="authz"}[$__rate_interval]))'))).toEqual([
        'test, panel "under test": corelite_http_requests_total is not on /metrics of authz',
        'test, panel "under test": sum by uses "route", not a label of no label',
      ]);
      expect(problemsOf(dashboardOf('corelite_http_request_duration_seconds{service="costasset"}'))).toEqual([
        'test, panel "under test": corelite_http_request_duration_seconds is not on /metrics of costasset',
      ]);
      expect(problemsOf(dashboardOf('corelite_nats_request_duration_second_count{service="costasset"}'))).toHaveLength(1);
    });

    it('uses a label the series does not have', () => {
      expect(
        problemsOf(
          dashboardOf(
            'sum by (path) (rate(corelite_http_request_duration_seconds_count{service="authz", collection="x"}[$__rate_interval]))',
          ),
        ),
      ).toEqual([
        'test, panel "under test": corelite_http_request_duration_seconds_count on authz ' +
          'uses "collection", not a label of instance, job, method, route, service, status',
        'test, panel "under test": sum by uses "path", not a label of instance, job, method, route, service, status',
      ]);
    });

    it('takes a quantile without le, divides series that cannot match, or rates a gauge over a fixed range', () => {
      const http = 'corelite_http_request_duration_seconds';
      expect(
        problemsOf(
          dashboardOf(
            `histogram_quantile(0.99, sum by (route) (rate(${http}_bucket{service="authz"}[$__rate_interval])))`,
            `sum by (route) (rate(${http}_count{service="authz", status=~"5.."}[$__rate_interval])) ` +
              `/ sum by (route, status) (rate(${http}_count{service="authz"}[$__rate_interval]))`,
            'rate(corelite_http_requests_in_flight{service="authz"}[5m])',
          ),
        ),
      ).toEqual([
        'test, panel "under test": histogram_quantile uses "le", not a label of route',
        'test, panel "under test": the sides of "/" have different labels (route / route, status): no sample matches',
        'test, panel "under test": corelite_http_requests_in_flight is not a counter: rate and increase read counters',
        'test, panel "under test": rate over [5m], not [$__rate_interval]',
      ]);
    });

    it('is not PromQL', () => {
      expect(problemsOf(dashboardOf('sum by (route (rate(corelite_http_requests_in_flight[1m]))'))).toHaveLength(1);
    });

    it('repeats a panel id, or leaves the data source out', () => {
      const dashboard = dashboardOf('sum(corelite_http_requests_in_flight{service="authz"})');
      dashboard.panels.push({ ...dashboard.panels[0], title: 'twin', datasource: undefined });
      expect(problemsOf(dashboard)).toEqual([
        'test, panel "twin": id 1 is another panel\'s',
        'test, panel "twin": not on the $datasource variable',
      ]);
    });
  });
});
