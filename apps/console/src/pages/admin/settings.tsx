import { useState } from 'preact/hooks';
import { authz, unwrap } from '../../api/client';
import type { AuditQuery, AuditRecord, ConfigValue, FeatureFlag } from '../../api/types';
import { type Column, DataTable } from '../../components/data-table';
import { TextField } from '../../components/forms';
import { Loaded } from '../../components/loaded';
import { Card, ErrorBox } from '../../components/states';
import { useAction, useApi } from '../../components/use-api';

/** Feature flags: `"true"` / `"false"`, switched in place. */
export function Flags() {
  const flags = useApi(() => unwrap(authz.GET('/core/featureflagmanagement/v1/featureflag')), []);
  const [key, setKey] = useState('');
  const set = useAction((flag: string, value: 'true' | 'false', create: boolean) =>
    create
      ? unwrap(authz.POST('/core/featureflagmanagement/v1/featureflag', { body: { flag_key: flag, flag_value: value } }))
      : unwrap(
          authz.PUT('/core/featureflagmanagement/v1/featureflag/{configurationKey}', {
            params: { path: { configurationKey: flag } },
            body: { flag_value: value },
          }),
        ),
  );
  const columns: Column<FeatureFlag>[] = [
    { key: 'flag', header: 'Flag', value: (flag) => flag.configurationkey, class: 'mono' },
    {
      key: 'value',
      header: 'Value',
      value: (flag) => flag.configurationvalue,
      cell: (flag) => (
        <label class="checkbox">
          <input
            type="checkbox"
            checked={flag.configurationvalue === 'true'}
            disabled={set.busy}
            onChange={async (event) => (
              await set.run(flag.configurationkey, (event.target as HTMLInputElement).checked ? 'true' : 'false', false),
              flags.reload()
            )}
          />
          {flag.configurationvalue === 'true' ? 'on' : 'off'}
        </label>
      ),
    },
  ];
  return (
    <Card title="Feature flags">
      {set.error && <ErrorBox error={set.error} />}
      <Loaded state={flags} empty={{ title: 'No flags set' }}>
        {(list) => <DataTable label="Feature flags" rows={list} columns={columns} rowKey={(flag) => flag.configurationkey} />}
      </Loaded>
      <form
        style={{ marginTop: '12px' }}
        onSubmit={async (event) => (event.preventDefault(), await set.run(key, 'true', true), flags.reload())}
      >
        <div class="form-grid">
          <TextField id="flag-key" label="New flag" value={key} onValue={setKey} placeholder="COMMON_DISCOVERY" required />
        </div>
        <div class="form-actions">
          <button class="button primary" type="submit" disabled={set.busy || !key}>
            Add flag (on)
          </button>
        </div>
      </form>
    </Card>
  );
}

const show = (value: ConfigValue['configurationvalue']) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** Configuration values; the directory entry's password reads `********` (the API never returns it). */
export function Config() {
  const values = useApi(() => unwrap(authz.GET('/core/configuration/v1/configvalues')), []);
  const [editing, setEditing] = useState<{ key: string; text: string }>();
  const save = useAction(async () => {
    let value: unknown;
    try {
      value = JSON.parse(editing!.text);
    } catch {
      value = editing!.text;
    }
    await unwrap(
      authz.PUT('/core/configuration/v1/configvalues', { body: { configurationkey: editing!.key, configurationvalue: value as never } }),
    );
    return true;
  });
  const columns: Column<ConfigValue>[] = [
    { key: 'key', header: 'Key', value: (entry) => entry.configurationkey, class: 'mono' },
    {
      key: 'value',
      header: 'Value',
      cell: (entry) => (
        <pre class="json" tabIndex={0}>
          {show(entry.configurationvalue)}
        </pre>
      ),
    },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (entry) => (
        <button
          type="button"
          class="button ghost small"
          onClick={() => setEditing({ key: entry.configurationkey, text: show(entry.configurationvalue) })}
        >
          Edit
        </button>
      ),
    },
  ];
  return (
    <Card
      title="Configuration values"
      actions={
        <button type="button" class="button secondary small" onClick={() => setEditing({ key: '', text: '' })}>
          New value
        </button>
      }
    >
      <Loaded state={values} empty={{ title: 'No configuration values' }}>
        {(list) => (
          <DataTable
            label="Configuration values"
            testId="config-values"
            rows={list}
            columns={columns}
            rowKey={(entry) => entry.configurationkey}
          />
        )}
      </Loaded>
      {editing && (
        <form
          style={{ marginTop: '12px' }}
          onSubmit={async (event) => (event.preventDefault(), (await save.run()) && (setEditing(undefined), values.reload()))}
        >
          <div class="form-grid">
            <TextField id="config-key" label="Key" value={editing.key} onValue={(key) => setEditing({ ...editing, key })} required />
            <div class="field wide">
              <label for="config-value">Value (JSON, or plain text)</label>
              <textarea
                id="config-value"
                class="mono"
                rows={6}
                value={editing.text}
                onInput={(event) => setEditing({ ...editing, text: (event.target as HTMLTextAreaElement).value })}
              />
              {editing.key === '_ldap_config' && <span class="muted small">Leave the password as ******** to keep the stored one.</span>}
            </div>
          </div>
          {save.error && <ErrorBox error={save.error} />}
          <div class="form-actions">
            <button class="button primary" type="submit" disabled={save.busy}>
              Save
            </button>
            <button class="button secondary" type="button" onClick={() => setEditing(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Card>
  );
}

const AUDIT_COLUMNS: Column<AuditRecord>[] = [
  { key: 'when', header: 'When', value: (record) => record.at, format: 'date' },
  { key: 'who', header: 'Who', value: (record) => record.actor },
  { key: 'action', header: 'Action', value: (record) => record.action, cell: (record) => <span class="badge">{record.action}</span> },
  {
    key: 'resource',
    header: 'Resource',
    value: (record) => `${record.resource} ${record.resourceId ?? ''}`.trim(),
    cell: (record) => (
      <>
        {record.resource} <span class="mono small">{record.resourceId}</span>
      </>
    ),
  },
  {
    key: 'change',
    header: 'Change',
    value: (record) => JSON.stringify(record.after ?? record.before ?? {}),
    sortable: false,
    cell: (record) => (
      <pre class="json" tabIndex={0}>
        {JSON.stringify(record.after ?? record.before ?? {}, null, 1)}
      </pre>
    ),
  },
];

/** The audit log, newest first, page by page. */
export function Audit() {
  const [filters, setFilters] = useState<AuditQuery>({ limit: 50 });
  const [cursors, setCursors] = useState<string[]>([]);
  const page = useApi(
    () => unwrap(authz.GET('/core/authorization/v1/audit', { params: { query: { ...filters, cursor: cursors[cursors.length - 1] } } })),
    [JSON.stringify(filters), cursors.join()],
  );
  return (
    <Card title="Audit log">
      <div class="form-grid" style={{ marginBottom: '12px' }}>
        <TextField
          id="audit-resource"
          label="Resource"
          value={filters.resource ?? ''}
          onValue={(resource) => (setCursors([]), setFilters({ ...filters, resource: resource || undefined }))}
          placeholder="configvalue"
        />
        <TextField
          id="audit-action"
          label="Action"
          value={filters.action ?? ''}
          onValue={(action) => (setCursors([]), setFilters({ ...filters, action: action || undefined }))}
          placeholder="update"
        />
      </div>
      <Loaded state={page} empty={{ title: 'No audit records match' }}>
        {(data) => (
          <>
            <DataTable
              label="Audit records"
              dense
              rows={data.items}
              columns={AUDIT_COLUMNS}
              rowKey={(record) => record.id}
              csv="audit-log"
            />
            <div class="form-actions">
              <button
                type="button"
                class="button secondary small"
                disabled={cursors.length === 0}
                onClick={() => setCursors(cursors.slice(0, -1))}
              >
                Previous
              </button>
              <button
                type="button"
                class="button secondary small"
                disabled={!data.nextCursor}
                onClick={() => setCursors([...cursors, data.nextCursor!])}
              >
                Next
              </button>
            </div>
          </>
        )}
      </Loaded>
    </Card>
  );
}
