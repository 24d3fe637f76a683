import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ApiError } from '../api/problem';
import type { ResourceGroup } from '../api/types';
import { useMe } from '../auth/me';
import { CostPreview } from '../components/cost-preview';
import { ExpressionInput } from '../components/expression-input';
import { ConfirmButton, SelectField, TextField } from '../components/forms';
import { Card, Empty, ErrorBox, Loading, PageHeader } from '../components/states';
import { useAction, useApi } from '../components/use-api';

interface Draft {
  id: string;
  type: 'visibility' | 'budgetary';
  expr: string;
  teams: string;
  version?: number;
}

const teamsOf = (group: ResourceGroup) => (group.context.teams ?? []).join(", ");

function Editor({ draft: initial, onSaved, onCancel, canWrite }: { draft: Draft; onSaved: () => void; onCancel: () => void; canWrite: boolean }) {
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<ApiError>();
  const set = (changes: Partial<Draft>) => setDraft({ ...draft, ...changes });
  const save = useAction(async () => {
    const context = { teams: draft.teams.split(',').map((team) => team.trim()).filter(Boolean) };
    if (initial.version === undefined) {
      await unwrap(costasset.POST('/api/costasset/v1/dynamicResourceGroups', { body: { _id: draft.id, type: draft.type, expr: draft.expr, context } }));
    } else {
      await unwrap(costasset.PUT('/api/costasset/v1/dynamicResourceGroups', { body: { _id: draft.id, version: initial.version, type: draft.type, expr: draft.expr, context } }));
    }
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    await save.run();
    if (!save.error) onSaved();
  };
  return (
    <form onSubmit={submit} aria-label="Resource group">
      <div class="form-grid">
        <TextField id="group-id" label="Id" value={draft.id} onValue={(id) => set({ id })} required readOnly={initial.version !== undefined} />
        <SelectField id="group-type" label="Type" value={draft.type} onValue={(type) => set({ type: type as Draft['type'] })} options={[['visibility', 'Visibility (what teams see)'], ['budgetary', 'Budgetary (a budget scope)']]} />
        <TextField id="group-teams" label="Teams" value={draft.teams} onValue={(teams) => set({ teams })} hint="Team codes whose members see this group's costs, comma-separated" />
        <div class="wide">
          <ExpressionInput id="group-expr" label="Expression" value={draft.expr} onInput={(expr) => set({ expr })} error={problem ?? (save.error?.position !== undefined ? save.error : undefined)} hint='e.g. providerName == "aws" && (billingAccountName == "prod" || category == "Compute")' />
        </div>
      </div>
      <h3 style={{ margin: '14px 0 6px' }}>Preview</h3>
      <CostPreview expression={draft.expr} onProblem={setProblem} />
      {save.error && save.error.position === undefined && <ErrorBox error={save.error} />}
      <div class="form-actions">
        {canWrite && (
          <button class="button primary" type="submit" disabled={save.busy || problem !== undefined}>
            {save.busy ? 'Saving…' : initial.version === undefined ? 'Create group' : 'Save group'}
          </button>
        )}
        <button class="button secondary" type="button" onClick={onCancel}>
          Close
        </button>
      </div>
    </form>
  );
}

export default function ResourceGroups() {
  const me = useMe();
  const groups = useApi(async () => (await unwrap(costasset.GET('/api/costasset/v1/dynamicResourceGroups'))) ?? [], []);
  const [draft, setDraft] = useState<Draft>();
  const remove = useAction((id: string) => unwrap(costasset.DELETE('/api/costasset/v1/dynamicResourceGroups/{id}', { params: { path: { id } } })));
  return (
    <div class="page">
      <PageHeader
        title="Resource groups"
        subtitle="Named slices of costs: visibility groups decide what each team sees; budgetary groups scope budgets."
        actions={
          me.is_system_admin && (
            <button type="button" class="button primary" onClick={() => setDraft({ id: '', type: 'visibility', expr: '', teams: '' })}>
              New group
            </button>
          )
        }
      />
      {draft && (
        <Card title={draft.version === undefined ? 'New resource group' : `Group ${draft.id}`}>
          <Editor
            key={`${draft.id}:${draft.version ?? 'new'}`}
            draft={draft}
            canWrite={me.is_system_admin}
            onCancel={() => setDraft(undefined)}
            onSaved={() => {
              setDraft(undefined);
              groups.reload();
            }}
          />
        </Card>
      )}
      {remove.error && <ErrorBox error={remove.error} />}
      <Card title="Groups">
        {groups.error ? (
          <ErrorBox error={groups.error} onRetry={groups.reload} />
        ) : !groups.data ? (
          <Loading />
        ) : groups.data.length === 0 ? (
          <Empty title="No resource groups">{me.is_system_admin ? 'Create a visibility group to let a team see its costs.' : 'No group is shared with your teams.'}</Empty>
        ) : (
          <div class="table-scroll">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Type</th>
                  <th scope="col">Expression</th>
                  <th scope="col">Teams</th>
                  <th scope="col" class="num">Version</th>
                  <th scope="col" class="actions"><span class="muted">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {groups.data.map((group) => (
                  <tr key={group._id}>
                    <td>
                      <button type="button" class="row-link" onClick={() => setDraft({ id: group._id, type: group.type, expr: group.expr, teams: teamsOf(group), version: group.version })}>
                        {group._id}
                      </button>
                    </td>
                    <td>
                      <span class={`badge ${group.type === 'visibility' ? 'busy' : 'warn'}`}>{group.type}</span>
                    </td>
                    <td>
                      <code>{group.expr}</code>
                    </td>
                    <td>{teamsOf(group) || <span class="muted">none</span>}</td>
                    <td class="num">{group.version}</td>
                    <td class="actions">
                      {me.is_system_admin && <ConfirmButton label="Delete" confirmLabel={`Delete ${group._id}`} busy={remove.busy} onConfirm={async () => (await remove.run(group._id), groups.reload())} />}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}
