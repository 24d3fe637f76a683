import { useLocation } from 'preact-iso';
import { useMemo } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { Anomaly, AnomalyStatus } from '../api/types';
import { canManageCostData, noVisibilityReason, useMe } from '../auth/me';
import { type Column, DataTable } from '../components/data-table';
import { SelectField, TextField } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, Empty } from '../components/states';
import { useApi } from '../components/use-api';
import { AnomalySettingsCard } from './anomaly-settings';
import { anomaliesHref, anomalyApiQuery, anomalyExplorerHref, anomalyFilterOf, STATUSES, transitions } from './anomaly-view';

const TITLE = 'Anomalies';
const SUBTITLE = 'Days on which a provider, account and service cost clearly more than their recent history predicts.';
const TONES: Record<AnomalyStatus, string> = { open: 'bad', acknowledged: 'warn', dismissed: 'idle' };

const dimension = (name: string, header: string): Column<Anomaly> => ({
  key: name,
  header,
  value: (anomaly) => anomaly.dimensions[name] ?? '(none)',
});

export default function Anomalies() {
  const me = useMe();
  const location = useLocation();
  const today = useMemo(() => new Date(), []);
  const filter = anomalyFilterOf(location.query, today);
  const setFilter = (changes: Partial<typeof filter>) => location.route(anomaliesHref({ ...filter, ...changes }, today), true);
  const reason = noVisibilityReason(me);
  const list = useApi(
    async () => (reason ? undefined : unwrap(costasset.GET('/api/costasset/v1/anomalies', { params: { query: anomalyApiQuery(filter) } }))),
    [filter.from, filter.to, filter.status],
  );
  const currency = useApi(() => unwrap(costasset.GET('/api/costasset/v1/currency/defaultCurrency')), []);
  const corporate = currency.data?.defaultCurrency ?? 'USD';
  const triage = canManageCostData(me);

  const setStatus = async (anomaly: Anomaly, status: AnomalyStatus) =>
    unwrap(costasset.PATCH('/api/costasset/v1/anomalies/{id}', { params: { path: { id: anomaly.id } }, body: { status } }));

  const columns: Column<Anomaly>[] = [
    {
      key: 'day',
      header: 'Day',
      value: (anomaly) => anomaly.day,
      rowHeader: true,
      // the series around that day in the explorer, by day
      cell: (anomaly) => (
        <a href={anomalyExplorerHref(anomaly, today)} aria-label={`Explore the series of ${anomaly.day}`} title="Open in the explorer">
          {anomaly.day}
        </a>
      ),
    },
    dimension('providerName', 'Provider'),
    dimension('billingAccountId', 'Account'),
    dimension('serviceName', 'Service'),
    { key: 'actual', header: 'Actual', value: (anomaly) => anomaly.actual, format: 'money', currency: () => corporate },
    { key: 'expected', header: 'Expected', value: (anomaly) => anomaly.expected, format: 'money', currency: () => corporate },
    {
      key: 'impact',
      header: 'Impact',
      value: (anomaly) => anomaly.impact,
      format: 'money',
      currency: () => corporate,
      class: 'strong',
    },
    { key: 'score', header: 'Score', value: (anomaly) => Math.round(anomaly.score * 10) / 10, format: 'number' },
    {
      key: 'status',
      header: 'Status',
      value: (anomaly) => anomaly.status,
      cell: (anomaly) => <span class={`badge ${TONES[anomaly.status]}`}>{anomaly.status}</span>,
    },
  ];
  if (triage)
    columns.push({
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (anomaly, scope) => (
        <>
          {transitions(anomaly.status).map(([status, label]) => (
            <button
              key={status}
              type="button"
              class="button secondary small"
              onClick={() =>
                setStatus(anomaly, status).then(
                  () => (scope.report(undefined), list.reload()),
                  (error) => scope.report(error),
                )
              }
            >
              {label}
            </button>
          ))}
        </>
      ),
    });

  const toolbar = (
    <div class="card filters control-grid" role="group" aria-label="Which anomalies">
      <TextField id="anomalies-from" label="From" type="date" value={filter.from} onValue={(from) => from && setFilter({ from })} />
      <TextField id="anomalies-to" label="To" type="date" value={filter.to} onValue={(to) => to && setFilter({ to })} />
      <SelectField
        id="anomalies-status"
        label="Status"
        value={filter.status}
        onValue={(status) => setFilter({ status: status as typeof filter.status })}
        options={STATUSES}
      />
    </div>
  );
  if (reason)
    return (
      <Page title={TITLE} subtitle={SUBTITLE}>
        <Card>
          <Empty title="No costs are visible to you">{reason}</Empty>
        </Card>
      </Page>
    );
  return (
    <Page title={TITLE} subtitle={SUBTITLE} toolbar={toolbar} testId="anomalies">
      <Loaded
        state={list}
        label="Loading anomalies…"
        empty={{
          title: filter.status === 'open' ? 'No open anomalies in this period' : 'No anomalies match',
          body:
            'Detection runs after each import and once a day; widen the period or choose another status. ' + 'Its thresholds are below.',
          card: true,
          when: (page) => !page?.items.length,
        }}
      >
        {(page) => (
          <Card title={`${page.items.length}${page.nextCursor ? '+' : ''} ${page.items.length === 1 ? 'anomaly' : 'anomalies'}`}>
            <DataTable
              label="Anomalies"
              testId="anomaly-list"
              rows={page.items}
              columns={columns}
              rowKey={(anomaly) => anomaly.id}
              rowProps={(anomaly) => ({ 'data-status': anomaly.status, 'data-day': anomaly.day })}
              csv={`anomalies ${filter.from} ${filter.to}`}
            />
            {page.nextCursor && <p class="muted small">The first 1,000 are shown: narrow the period to see the others.</p>}
          </Card>
        )}
      </Loaded>
      <AnomalySettingsCard admin={me.is_system_admin} currency={corporate} />
    </Page>
  );
}
