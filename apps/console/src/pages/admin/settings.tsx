import { useState } from 'preact/hooks';
import { authz, unwrap } from '../../api/client';
import type { AuditQuery, ConfigValue } from '../../api/types';
import { dateTime } from '../../components/format';
import { TextField } from '../../components/forms';
import { Card, Empty, ErrorBox, Loading } from '../../components/states';
import { useAction, useApi } from '../../components/use-api';

/** Feature flags: `"true"` / `"false"`, switched in place. */
export function Flags() {
  const flags = useApi(() => unwrap(authz.GET('/core/featureflagmanagement/v1/featureflag')), []);
  const [key, setKey] = useState('');
  const set = useAction((flag: string, value: 'true' | 'false', create: boolean) =>
    create
      ? unwrap(authz.POST('/core/featureflagmanagement/v1/featureflag', { body: { flag_key: flag, flag_value: value } }))
      : unwrap(authz.PUT('/core/featureflagmanagement/v1/featureflag/{configurationKey}', { params: { path: { configurationKey: flag } }, body: { flag_value: value } })),
  );
  return (
    <Card title="Feature flags">
      {set.error && <ErrorBox error={set.error} />}
      {flags.error ? (
        <ErrorBox error={flags.error} onRetry={flags.reload} />
      ) : !flags.data ? (
        <Loading />
      ) : flags.data.length === 0 ? (
        <Empty title="No flags set" />
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Flag</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {flags.data.map((flag) => (
              <tr key={flag.configurationkey}>
                <td class="mono">{flag.configurationkey}</td>
                <td>
                  <label class="checkbox">
                    <input type="checkbox" checked={flag.configurationvalue === 'true'} disabled={set.busy} onChange={async (event) => (await set.run(flag.configurationkey, (event.target as HTMLInputElement).checked ? 'true' : 'false', false), flags.reload())} />
                    {flag.configurationvalue === 'true' ? 'on' : 'off'}
                  </label>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form style={{ marginTop: '12px' }} onSubmit={async (event) => (event.preventDefault(), await set.run(key, 'true', true), flags.reload())}>
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
    await unwrap(authz.PUT('/core/configuration/v1/configvalues', { body: { configurationkey: editing!.key, configurationvalue: value as never } }));
  });
  return (
    <Card title="Configuration values" actions={<button type="button" class="button secondary small" onClick={() => setEditing({ key: '', text: '' })}>New value</button>}>
      {values.error ? (
        <ErrorBox error={values.error} onRetry={values.reload} />
      ) : !values.data ? (
        <Loading />
      ) : (
        <table class="table" data-testid="config-values">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
              <th scope="col" class="actions"><span class="muted">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {values.data.map((entry) => (
              <tr key={entry.configurationkey}>
                <td class="mono">{entry.configurationkey}</td>
                <td>
                  <pre class="json" tabIndex={0}>{show(entry.configurationvalue)}</pre>
                </td>
                <td class="actions">
                  <button type="button" class="button ghost small" onClick={() => setEditing({ key: entry.configurationkey, text: show(entry.configurationvalue) })}>
                    Edit
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && (
        <form style={{ marginTop: '12px' }} onSubmit={async (event) => (event.preventDefault(), await save.run(), !save.error && (setEditing(undefined), values.reload()))}>
          <div class="form-grid">
            <TextField id="config-key" label="Key" value={editing.key} onValue={(key) => setEditing({ ...editing, key })} required />
            <div class="field wide">
              <label for="config-value">Value (JSON, or plain text)</label>
              <textarea id="config-value" class="mono" rows={6} value={editing.text} onInput={(event) => setEditing({ ...editing, text: (event.target as HTMLTextAreaElement).value })} />
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

/** The audit log, newest first, page by page. */
export function Audit() {
  const [filters, setFilters] = useState<AuditQuery>({ limit: 50 });
  const [cursors, setCursors] = useState<string[]>([]);
  const page = useApi(() => unwrap(authz.GET('/core/authorization/v1/audit', { params: { query: { ...filters, cursor: cursors[cursors.length - 1] } } })), [JSON.stringify(filters), cursors.join()]);
  return (
    <Card title="Audit log">
      <div class="form-grid" style={{ marginBottom: '12px' }}>
        <TextField id="audit-resource" label="Resource" value={filters.resource ?? ''} onValue={(resource) => (setCursors([]), setFilters({ ...filters, resource: resource || undefined }))} placeholder="configvalue" />
        <TextField id="audit-action" label="Action" value={filters.action ?? ''} onValue={(action) => (setCursors([]), setFilters({ ...filters, action: action || undefined }))} placeholder="update" />
      </div>
      {page.error ? (
        <ErrorBox error={page.error} onRetry={page.reload} />
      ) : !page.data ? (
        <Loading />
      ) : page.data.items.length === 0 ? (
        <Empty title="No audit records match" />
      ) : (
        <>
          <div class="table-scroll">
            <table class="table dense">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Change</th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((record) => (
                  <tr key={record.id}>
                    <td>{dateTime(record.at)}</td>
                    <td>{record.actor}</td>
                    <td>
                      <span class="badge">{record.action}</span>
                    </td>
                    <td>
                      {record.resource} <span class="mono small">{record.resourceId}</span>
                    </td>
                    <td>
                      <pre class="json" tabIndex={0}>{JSON.stringify(record.after ?? record.before ?? {}, null, 1)}</pre>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div class="form-actions">
            <button type="button" class="button secondary small" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </button>
            <button type="button" class="button secondary small" disabled={!page.data.nextCursor} onClick={() => setCursors([...cursors, page.data!.nextCursor!])}>
              Next
            </button>
          </div>
        </>
      )}
    </Card>
  );
}
