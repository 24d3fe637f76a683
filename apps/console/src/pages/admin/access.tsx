import { useState } from 'preact/hooks';
import { authz, unwrap } from '../../api/client';
import type { AuthTypeConfiguration } from '../../api/types';
import { type Column, DataTable } from '../../components/data-table';
import { ConfirmButton, SelectField, TextField } from '../../components/forms';
import { Loaded } from '../../components/loaded';
import { Card, ErrorBox } from '../../components/states';
import { useAction, useApi } from '../../components/use-api';

/** Auth-type configurations and the IdP mappings that choose one per identity provider. */
export function Access({ idp }: { idp: string }) {
  const configurations = useApi(() => unwrap(authz.GET('/core/authorization/v1/authtype/configurations')), []);
  const [form, setForm] = useState({ name: '', auth_type: 'hybrid' as 'internal' | 'hybrid', external: '', team: '' });
  const create = useAction(() =>
    unwrap(
      authz.POST('/core/authorization/v1/authtype/configurations', {
        body: {
          name: form.name,
          auth_type: form.auth_type,
          ...(form.auth_type === 'hybrid'
            ? {
                initial_system_admin_team_external_ref_id: form.external,
                ...(form.team ? { initial_system_admin_team_code: form.team } : {}),
              }
            : {}),
        },
      }),
    ),
  );
  const remove = useAction((id: string) =>
    unwrap(authz.DELETE('/core/authorization/v1/authtype/configurations/{auth_type_id}', { params: { path: { auth_type_id: id } } })),
  );
  const columns: Column<AuthTypeConfiguration>[] = [
    { key: 'name', header: 'Name', value: (configuration) => configuration.name },
    {
      key: 'type',
      header: 'Type',
      value: (configuration) => configuration.auth_type,
      cell: (configuration) => (
        <span class={`badge ${configuration.auth_type === 'hybrid' ? 'busy' : 'ok'}`}>{configuration.auth_type}</span>
      ),
    },
    { key: 'team', header: 'System Admin team', value: (configuration) => configuration.initial_system_admin_team_code },
    { key: 'external', header: 'External group', value: (configuration) => configuration.initial_system_admin_team_external_ref_id },
    { key: 'id', header: 'Id', value: (configuration) => configuration.id, class: 'mono small' },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (configuration) => (
        <ConfirmButton
          label="Delete"
          confirmLabel={`Delete ${configuration.name}`}
          busy={remove.busy}
          onConfirm={async () => (await remove.run(configuration.id), configurations.reload())}
        />
      ),
    },
  ];
  const [mapping, setMapping] = useState({ idp, configuration: '' });
  const [mapped, setMapped] = useState<string>();
  const map = useAction(async (mode: 'create' | 'change') => {
    const answer =
      mode === 'create'
        ? await unwrap(
            authz.POST('/core/authorization/v1/configuration/idp', { body: { idp_id: mapping.idp, auth_type_id: mapping.configuration } }),
          )
        : await unwrap(
            authz.PATCH('/core/authorization/v1/configuration/idp/{idp_id}', {
              params: { path: { idp_id: mapping.idp } },
              body: { auth_type_id: mapping.configuration },
            }),
          );
    setMapped(`${answer.idp_id} now uses ${answer.auth_type} authorization (${answer.auth_type_id}).`);
  });
  return (
    <div class="grid">
      <Card title="Auth-type configurations">
        <Loaded state={configurations} empty={{ title: 'No configurations' }}>
          {(list) => (
            <DataTable
              label="Auth-type configurations"
              rows={list}
              columns={columns}
              rowKey={(configuration) => configuration.id}
              csv="auth-type-configurations"
            />
          )}
        </Loaded>
        {remove.error && <ErrorBox error={remove.error} />}
        <h3 style={{ margin: '16px 0 8px' }}>New configuration</h3>
        <form
          onSubmit={async (event) => {
            event.preventDefault();
            if (await create.run()) configurations.reload();
          }}
        >
          <div class="form-grid">
            <TextField id="authtype-name" label="Name" value={form.name} onValue={(name) => setForm({ ...form, name })} required />
            <SelectField
              id="authtype-type"
              label="Type"
              value={form.auth_type}
              onValue={(value) => setForm({ ...form, auth_type: value as 'internal' | 'hybrid' })}
              options={[
                ['hybrid', 'Hybrid (directory groups)'],
                ['internal', 'Internal (teams in corelite)'],
              ]}
            />
            {form.auth_type === 'hybrid' && (
              <>
                <TextField
                  id="authtype-external"
                  label="System Admin external group"
                  value={form.external}
                  onValue={(external) => setForm({ ...form, external })}
                  required
                />
                <TextField
                  id="authtype-team"
                  label="System Admin team code (optional)"
                  value={form.team}
                  onValue={(team) => setForm({ ...form, team })}
                />
              </>
            )}
          </div>
          {create.error && <ErrorBox error={create.error} />}
          <div class="form-actions">
            <button class="button primary" type="submit" disabled={create.busy}>
              Create configuration
            </button>
          </div>
        </form>
      </Card>
      <Card title="IdP mappings">
        <p class="muted">
          Each identity provider of the tenant uses one configuration. Your token's IdP is <code>{idp}</code>.
        </p>
        <form onSubmit={(event) => (event.preventDefault(), map.run('create'))}>
          <div class="form-grid">
            <TextField
              id="mapping-idp"
              label="IdP"
              value={mapping.idp}
              onValue={(value) => setMapping({ ...mapping, idp: value })}
              required
            />
            <SelectField
              id="mapping-configuration"
              label="Configuration"
              value={mapping.configuration}
              onValue={(configuration) => setMapping({ ...mapping, configuration })}
              options={[
                ['', 'Choose…'],
                ...(configurations.data ?? []).map(
                  (configuration) => [configuration.id, `${configuration.name} (${configuration.auth_type})`] as const,
                ),
              ]}
            />
          </div>
          {map.error && <ErrorBox error={map.error} />}
          {mapped && <p class="success">{mapped}</p>}
          <div class="form-actions">
            <button class="button primary" type="submit" disabled={map.busy || !mapping.configuration}>
              Map
            </button>
            <button class="button secondary" type="button" disabled={map.busy || !mapping.configuration} onClick={() => map.run('change')}>
              Change existing mapping
            </button>
          </div>
        </form>
      </Card>
    </div>
  );
}
