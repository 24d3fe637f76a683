import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { NotificationChannel, NotificationChannelWithSecret } from '../api/types';
import { useMe } from '../auth/me';
import { type Column, DataTable } from '../components/data-table';
import { ConfirmButton } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, Empty, ErrorBox } from '../components/states';
import { chosen, hrefOf } from '../components/url-state';
import { useAction, useApi } from '../components/use-api';
import { ChannelEditor, SecretOnce } from './alert-channel-form';
import { Deliveries } from './alert-deliveries';
import { Subscriptions } from './alert-subscriptions';
import { blankChannel, channelFormOf, channelTarget } from './alerts-logic';

const TITLE = 'Alerts';
const SUBTITLE = 'Where budget alerts and cost anomalies are sent: channels, the topics they hear, and what was delivered.';

/** System Admins only (the navigation hides it from others, and the API refuses them anyway). */
export default function Alerts() {
  const me = useMe();
  const location = useLocation();
  const [editing, setEditing] = useState<string | undefined>();
  const [secret, setSecret] = useState<NotificationChannelWithSecret>();
  const [tested, setTested] = useState<Record<string, string>>({});
  const [version, setVersion] = useState(0);
  const channels = useApi(
    async () =>
      me.is_system_admin
        ? (await unwrap(costasset.GET('/api/costasset/v1/notificationChannels', { params: { query: { limit: 1000 } } }))).items
        : [],
    [],
  );
  const act = useAction(async (kind: 'test' | 'rotate' | 'delete', channel: NotificationChannel) => {
    const path = { params: { path: { id: channel.id } } };
    if (kind === 'test') {
      const delivery = await unwrap(costasset.POST('/api/costasset/v1/notificationChannels/{id}/test', path));
      setTested({ ...tested, [channel.id]: `Test ${delivery.status}: follow it in the delivery log` });
      location.route(hrefOf('/alerts', { channel: channel.id }), true);
      setVersion((value) => value + 1);
    } else if (kind === 'rotate') {
      setSecret(await unwrap(costasset.PATCH('/api/costasset/v1/notificationChannels/{id}', { ...path, body: { rotateSecret: true } })));
    } else {
      await unwrap(costasset.DELETE('/api/costasset/v1/notificationChannels/{id}', path));
      channels.reload();
    }
  });

  if (!me.is_system_admin)
    return (
      <Page title={TITLE}>
        <Empty title="Alerts are for System Admins">
          Ask a System Admin of your tenant to send budget alerts or anomalies to your team.
        </Empty>
      </Page>
    );

  const current = chosen(channels.data, location.query.channel, (channel) => channel.id);
  const edited = channels.data?.find((channel) => channel.id === editing);
  const columns: Column<NotificationChannel>[] = [
    {
      key: 'name',
      header: 'Name',
      value: (channel) => channel.name,
      cell: (channel) => (
        <button
          type="button"
          class="row-link"
          aria-pressed={channel.id === current?.id}
          onClick={() => location.route(hrefOf('/alerts', { channel: channel.id }), true)}
        >
          {channel.name}
        </button>
      ),
    },
    { key: 'type', header: 'Type', value: (channel) => channel.type },
    { key: 'target', header: 'Sends to', value: channelTarget },
    {
      key: 'secret',
      header: 'Signing secret',
      value: (channel) => (channel.type === 'email' ? '' : channel.secretSet ? 'set' : 'none'),
    },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (channel) => (
        <>
          {tested[channel.id] && (
            <span class="muted small" role="status" data-testid={`test-result-${channel.id}`}>
              {tested[channel.id]}{' '}
            </span>
          )}
          <button type="button" class="button secondary small" disabled={act.busy} onClick={() => act.run('test', channel)}>
            Send test
          </button>
          <button type="button" class="button ghost small" onClick={() => setEditing(channel.id)}>
            Edit
          </button>
          {channel.type === 'webhook' && (
            <ConfirmButton
              label="Rotate secret"
              confirmLabel="Make a new secret"
              busy={act.busy}
              onConfirm={() => act.run('rotate', channel)}
            />
          )}
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${channel.name}`}
            busy={act.busy}
            onConfirm={() => act.run('delete', channel)}
          />
        </>
      ),
    },
  ];
  const add = !editing && (
    <button type="button" class="button primary" onClick={() => setEditing('new')}>
      New channel
    </button>
  );
  return (
    <Page title={TITLE} subtitle={SUBTITLE} actions={add} testId="alerts">
      {secret && <SecretOnce channel={secret} onDone={() => setSecret(undefined)} />}
      {editing && (
        <Card title={editing === 'new' ? 'New channel' : `Edit ${edited?.name ?? ''}`}>
          <ChannelEditor
            key={editing}
            id={editing === 'new' ? undefined : editing}
            initial={editing === 'new' || !edited ? blankChannel() : channelFormOf(edited)}
            onCancel={() => setEditing(undefined)}
            onSaved={(saved) => {
              setEditing(undefined);
              if (saved.signingSecret) setSecret(saved);
              channels.reload();
              location.route(hrefOf('/alerts', { channel: saved.id }), true);
            }}
          />
        </Card>
      )}
      {act.error && <ErrorBox error={act.error} />}
      <Loaded
        state={channels}
        empty={{
          title: 'No channels yet',
          body:
            'Start with "New channel": an email list or a webhook (JSON, Slack or Teams). ' +
            'Then subscribe it to budget alerts or to anomalies below.',
          card: true,
        }}
      >
        {(list) => (
          <>
            <Card title="Channels">
              <DataTable
                label="Notification channels"
                testId="channel-list"
                rows={list}
                columns={columns}
                rowKey={(channel) => channel.id}
                rowProps={(channel) => ({ class: channel.id === current?.id ? 'selected' : undefined, 'data-channel': channel.name })}
              />
            </Card>
            {current && <Deliveries channel={current} version={version} />}
          </>
        )}
      </Loaded>
      <Subscriptions channels={channels.data ?? []} />
    </Page>
  );
}
