import { useEffect } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { Delivery, NotificationChannel } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { Loaded } from '../components/loaded';
import { Card } from '../components/states';
import { useApi } from '../components/use-api';
import { DELIVERY_TONES, deliveryTime, stillMoving } from './alerts-logic';

const COLUMNS: Column<Delivery>[] = [
  {
    key: 'status',
    header: 'Status',
    value: (delivery) => delivery.status,
    cell: (delivery) => <span class={`badge ${DELIVERY_TONES[delivery.status]}`}>{delivery.status.replace('_', ' ')}</span>,
  },
  { key: 'topic', header: 'Topic', value: (delivery) => delivery.topic },
  { key: 'title', header: 'Message', value: (delivery) => delivery.title },
  { key: 'attempts', header: 'Attempts', value: (delivery) => delivery.attempts, format: 'number' },
  {
    key: 'error',
    header: 'Last error',
    value: (delivery) => delivery.lastError,
    cell: (delivery) => (delivery.lastError ? <span class="error-text">{delivery.lastError}</span> : <span class="muted">none</span>),
  },
  { key: 'time', header: 'Time', value: deliveryTime, format: 'date' },
];

/** A channel's delivery log, newest first; asked again every 1.5 s while a delivery is queued or sending. */
export function Deliveries({ channel, version }: { channel: NotificationChannel; version: number }) {
  const log = useApi(
    () =>
      unwrap(
        costasset.GET('/api/costasset/v1/notificationChannels/{id}/deliveries', {
          params: { path: { id: channel.id }, query: { limit: 50 } },
        }),
      ),
    [channel.id, version],
  );
  const moving = log.data ? stillMoving(log.data.items) : false;
  useEffect(() => {
    if (!moving || log.loading) return;
    const timer = setTimeout(log.reload, 1500);
    return () => clearTimeout(timer);
  }, [moving, log.loading, log.data]);
  const refresh = (
    <button type="button" class="button ghost" onClick={log.reload} disabled={log.loading}>
      {log.loading ? 'Refreshing…' : 'Refresh'}
    </button>
  );
  return (
    <Card title={`Deliveries of ${channel.name}`} actions={refresh}>
      <Loaded
        state={log}
        empty={{
          title: 'Nothing sent to this channel yet',
          body: 'Use "Send test" to check it, or subscribe it to budget alerts or anomalies below.',
          when: (page) => !page?.items.length,
        }}
      >
        {(page) => (
          <DataTable
            label={`Deliveries of ${channel.name}`}
            testId="delivery-log"
            dense
            rows={page.items}
            columns={COLUMNS}
            rowKey={(delivery) => delivery.id}
            rowProps={(delivery) => ({ 'data-status': delivery.status, 'data-topic': delivery.topic })}
          />
        )}
      </Loaded>
    </Card>
  );
}
