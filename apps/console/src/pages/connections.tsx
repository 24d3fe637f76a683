import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import { useMe } from '../auth/me';
import { type Column, DataTable } from '../components/data-table';
import { dateTime } from '../components/format';
import { ConfirmButton } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, Empty, ErrorBox, StatusBadge } from '../components/states';
import { chosen, hrefOf } from '../components/url-state';
import { useAction, useApi } from '../components/use-api';
import { ConnectionEditor } from './connections-form';
import {
  blankConnection,
  checkInWords,
  type Connection,
  connectionFormOf,
  layoutLabel,
  locationOf,
  runCounts,
  scheduleInWords,
} from './connections-logic';
import { POLL_MS, RunDetail, RunHistory } from './connections-runs';

const TITLE = 'Connections';
const SUBTITLE =
  'Buckets and containers the clouds write billing exports to: tested, synced on a schedule or when asked, ' +
  'each new or changed delivery imported as a FOCUS upload.';

/** What a row's last action said: a sync started (or already running), a test's result. */
interface Note {
  text: string;
  tone: 'ok' | 'bad' | 'muted';
}

function LastSync({ connection }: { connection: Connection }) {
  const run = connection.lastRun;
  if (!run) return <span class="muted">never</span>;
  return (
    <div data-testid={`last-sync-${connection.id}`}>
      <StatusBadge status={run.status} /> <span class="small">{dateTime(run.finishedAt ?? run.startedAt)}</span>
      <div class="muted small">{runCounts(run)}</div>
    </div>
  );
}

function NewButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" class="button primary" onClick={onClick}>
      New connection
    </button>
  );
}

/** System Admins only (the navigation hides it from others, and the API refuses them anyway). */
export default function Connections() {
  const me = useMe();
  const location = useLocation();
  const [editing, setEditing] = useState<string | undefined>();
  const [notes, setNotes] = useState<Record<string, Note>>({});
  const [version, setVersion] = useState(0);
  const connections = useApi(
    async () => (me.is_system_admin ? (await unwrap(costasset.GET('/api/costasset/v1/connections'))).items : []),
    [],
  );
  // while a sync is queued or running, the list follows it (its last sync, its schedule)
  const syncing = !!connections.data?.some((connection) => connection.syncing);
  useEffect(() => {
    if (!syncing || connections.loading) return;
    const timer = setTimeout(connections.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [syncing, connections.loading, connections.data]);
  const note = (connection: Connection, text: string, tone: Note['tone'] = 'muted') =>
    setNotes((all) => ({ ...all, [connection.id]: { text, tone } }));
  const open = (connection: Connection, run?: string) => location.route(hrefOf('/connections', { connection: connection.id, run }), true);

  const act = useAction(async (kind: 'sync' | 'test' | 'toggle' | 'delete', connection: Connection) => {
    const path = { params: { path: { id: connection.id } } };
    if (kind === 'sync') {
      const started = await unwrap(costasset.POST('/api/costasset/v1/connections/{id}/sync', path));
      note(connection, started.alreadyRunning ? 'Already running: showing that sync' : 'Sync started');
      open(connection, started.runId);
      setVersion((value) => value + 1);
      connections.reload();
    } else if (kind === 'test') {
      const check = await unwrap(costasset.POST('/api/costasset/v1/connections/{id}/test', path));
      note(
        connection,
        check.ok ? `Works: ${checkInWords(check)}` : `Does not work: ${check.problem ?? checkInWords(check)}`,
        check.ok ? 'ok' : 'bad',
      );
    } else if (kind === 'toggle') {
      await unwrap(costasset.PATCH('/api/costasset/v1/connections/{id}', { ...path, body: { enabled: !connection.enabled } }));
      connections.reload();
    } else {
      await unwrap(costasset.DELETE('/api/costasset/v1/connections/{id}', path));
      if (location.query.connection === connection.id) location.route('/connections', true);
      connections.reload();
    }
  });

  if (!me.is_system_admin)
    return (
      <Page title={TITLE}>
        <Empty title="Connections are for System Admins">
          Ask a System Admin of your tenant to connect the bucket your cloud writes its billing exports to.
        </Empty>
      </Page>
    );

  const current = chosen(connections.data, location.query.connection, (connection) => connection.id);
  const run = current && location.query.connection === current.id ? location.query.run : undefined;
  const edited = connections.data?.find((connection) => connection.id === editing);
  const columns: Column<Connection>[] = [
    {
      key: 'name',
      header: 'Name',
      value: (connection) => connection.name,
      cell: (connection) => (
        <button type="button" class="row-link" aria-pressed={connection.id === current?.id} onClick={() => open(connection)}>
          {connection.name}
        </button>
      ),
    },
    {
      key: 'kind',
      header: 'Type and layout',
      value: (connection) => `${connection.type} ${connection.layout}`,
      cell: (connection) => (
        <>
          {connection.type}
          <div class="muted small">{layoutLabel(connection.layout)}</div>
        </>
      ),
    },
    {
      key: 'location',
      header: 'Location',
      value: locationOf,
      cell: (connection) => (
        <>
          <span class="mono small">{locationOf(connection)}</span>
          {connection.credentials.accessKeyId || connection.credentials.accountName ? (
            <div class="muted small">as {connection.credentials.accessKeyId ?? connection.credentials.accountName}</div>
          ) : (
            <div class="muted small">with a SAS token</div>
          )}
        </>
      ),
    },
    {
      key: 'schedule',
      header: 'Schedule',
      value: (connection) => scheduleInWords(connection.schedule),
      cell: (connection) => (
        <>
          <span data-testid={`schedule-${connection.id}`}>{scheduleInWords(connection.schedule)}</span>
          <div class="muted small">
            {!connection.schedule
              ? ''
              : !connection.enabled
                ? 'paused'
                : connection.nextSyncAt
                  ? `next ${dateTime(connection.nextSyncAt)}`
                  : 'no next run'}
          </div>
        </>
      ),
    },
    {
      key: 'last',
      header: 'Last sync',
      value: (connection) => connection.lastRun?.startedAt,
      cell: (connection) => <LastSync connection={connection} />,
    },
    {
      key: 'enabled',
      header: 'Enabled',
      value: (connection) => (connection.enabled ? 'on' : 'off'),
      cell: (connection) => (
        <>
          <span class={`badge ${connection.enabled ? 'ok' : 'idle'}`}>{connection.enabled ? 'enabled' : 'disabled'}</span>{' '}
          <button type="button" class="button ghost small" disabled={act.busy} onClick={() => act.run('toggle', connection)}>
            {connection.enabled ? 'Disable' : 'Enable'}
          </button>
        </>
      ),
    },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (connection) => (
        <>
          {notes[connection.id] && (
            <div class={`small note-${notes[connection.id].tone}`} role="status" data-testid={`note-${connection.id}`}>
              {notes[connection.id].text}
            </div>
          )}
          <button type="button" class="button secondary small" disabled={act.busy} onClick={() => act.run('sync', connection)}>
            Sync now
          </button>
          <button type="button" class="button ghost small" disabled={act.busy} onClick={() => act.run('test', connection)}>
            Test
          </button>
          <button type="button" class="button ghost small" onClick={() => setEditing(connection.id)}>
            Edit
          </button>
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${connection.name}`}
            busy={act.busy}
            onConfirm={() => act.run('delete', connection)}
          />
        </>
      ),
    },
  ];
  const any = !!connections.data?.length;
  return (
    <Page
      title={TITLE}
      subtitle={SUBTITLE}
      actions={!editing && any && <NewButton onClick={() => setEditing('new')} />}
      testId="connections"
    >
      {editing && (
        <Card title={editing === 'new' ? 'New connection' : `Edit ${edited?.name ?? ''}`}>
          <ConnectionEditor
            key={editing}
            original={editing === 'new' ? undefined : edited}
            initial={editing === 'new' || !edited ? blankConnection() : connectionFormOf(edited)}
            onCancel={() => setEditing(undefined)}
            onSaved={(saved) => {
              setEditing(undefined);
              connections.reload();
              open(saved);
            }}
          />
        </Card>
      )}
      {act.error && <ErrorBox error={act.error} />}
      <Loaded
        state={connections}
        empty={{
          title: 'No connections yet',
          body: (
            <>
              <p>
                A connection reads the billing exports your cloud writes to a bucket or container (AWS Data Exports, Azure Cost Management
                exports, or plain FOCUS files) and imports each new or changed delivery, on a schedule or when you ask. Credentials are
                sealed and never shown again.
              </p>
              {!editing && <NewButton onClick={() => setEditing('new')} />}
            </>
          ),
          card: true,
        }}
      >
        {(list) => (
          <>
            <Card title="Connections">
              <DataTable
                label="Data connections"
                testId="connection-list"
                rows={list}
                columns={columns}
                rowKey={(connection) => connection.id}
                rowProps={(connection) => ({
                  class: connection.id === current?.id ? 'selected' : undefined,
                  'data-connection': connection.name,
                  'data-syncing': String(connection.syncing),
                })}
              />
            </Card>
            {current && (
              <RunHistory
                key={current.id}
                connection={current}
                version={version}
                selected={run}
                onSelect={(runId) => open(current, runId)}
              />
            )}
            {current && run && (
              <RunDetail
                key={run}
                connection={current}
                runId={run}
                onSettled={() => {
                  setVersion((value) => value + 1);
                  connections.reload();
                }}
              />
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}
