import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ApiError } from '../api/problem';
import type { ResourceGroup } from '../api/types';
import { useMe } from '../auth/me';
import { CostPreview } from '../components/cost-preview';
import { ExpressionInput } from '../components/expression-input';
import { ConfirmButton, SelectField, TextField } from '../components/forms';
import { type Column, DataTable } from '../components/data-table';
import { splitProblem } from '../components/expression';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, ErrorBox } from '../components/states';
import { useAction, useApi } from '../components/use-api';

interface Draft {
  id: string;
  type: 'visibility' | 'budgetary';
  expr: string;
  teams: string;
  version?: number;
}

const teamsOf = (group: ResourceGroup) => (group.context.teams ?? []).join(', ');

function Editor({
  draft: initial,
  onSaved,
  onCancel,
  canWrite,
}: {
  draft: Draft;
  onSaved: () => void;
  onCancel: () => void;
  canWrite: boolean;
}) {
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<ApiError>();
  const set = (changes: Partial<Draft>) => setDraft({ ...draft, ...changes });
  const save = useAction(async () => {
    const context = {
      teams: draft.teams
        .split(',')
        .map((team) => team.trim())
        .filter(Boolean),
    };
    if (initial.version === undefined) {
      await unwrap(
        costasset.POST('/api/costasset/v1/dynamicResourceGroups', { body: { _id: draft.id, type: draft.type, expr: draft.expr, context } }),
      );
    } else {
      await unwrap(
        costasset.PUT('/api/costasset/v1/dynamicResourceGroups', {
          body: { _id: draft.id, version: initial.version, type: draft.type, expr: draft.expr, context },
        }),
      );
    }
    return true;
  });
  const saved = splitProblem(save.error);
  const submit = async (event: Event) => {
    event.preventDefault();
    // the answer, not `save.error` (this render's value), tells whether it saved
    if (await save.run()) onSaved();
  };
  return (
    <form onSubmit={submit} aria-label="Resource group">
      <div class="form-grid">
        <TextField
          id="group-id"
          label="Id"
          value={draft.id}
          onValue={(id) => set({ id })}
          required
          readOnly={initial.version !== undefined}
        />
        <SelectField
          id="group-type"
          label="Type"
          value={draft.type}
          onValue={(type) => set({ type: type as Draft['type'] })}
          options={[
            ['visibility', 'Visibility (what teams see)'],
            ['budgetary', 'Budgetary (a budget scope)'],
          ]}
        />
        <TextField
          id="group-teams"
          label="Teams"
          value={draft.teams}
          onValue={(teams) => set({ teams })}
          hint="Team codes whose members see this group's costs, comma-separated"
        />
        <div class="wide">
          <ExpressionInput
            id="group-expr"
            label="Expression"
            value={draft.expr}
            onInput={(expr) => set({ expr })}
            error={problem ?? saved.expression}
            hint='e.g. providerName == "aws" && (billingAccountName == "prod" || category == "Compute")'
          />
        </div>
      </div>
      <h3 style={{ margin: '14px 0 6px' }}>Preview</h3>
      <CostPreview expression={draft.expr} onProblem={setProblem} />
      {saved.other && <ErrorBox error={saved.other} />}
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
  const remove = useAction((id: string) =>
    unwrap(costasset.DELETE('/api/costasset/v1/dynamicResourceGroups/{id}', { params: { path: { id } } })),
  );
  const open = (group: ResourceGroup) =>
    setDraft({ id: group._id, type: group.type, expr: group.expr, teams: teamsOf(group), version: group.version });
  const columns: Column<ResourceGroup>[] = [
    {
      key: 'id',
      header: 'Id',
      value: (group) => group._id,
      cell: (group) => (
        <button type="button" class="row-link" onClick={() => open(group)}>
          {group._id}
        </button>
      ),
    },
    {
      key: 'type',
      header: 'Type',
      value: (group) => group.type,
      cell: (group) => <span class={`badge ${group.type === 'visibility' ? 'busy' : 'warn'}`}>{group.type}</span>,
    },
    { key: 'expr', header: 'Expression', value: (group) => group.expr, cell: (group) => <code>{group.expr}</code> },
    { key: 'teams', header: 'Teams', value: teamsOf, cell: (group) => teamsOf(group) || <span class="muted">none</span> },
    { key: 'version', header: 'Version', value: (group) => group.version, format: 'number' },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (group) =>
        me.is_system_admin && (
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${group._id}`}
            busy={remove.busy}
            onConfirm={async () => (await remove.run(group._id), groups.reload())}
          />
        ),
    },
  ];
  const newGroup = me.is_system_admin && (
    <button type="button" class="button primary" onClick={() => setDraft({ id: '', type: 'visibility', expr: '', teams: '' })}>
      New group
    </button>
  );
  return (
    <Page
      title="Resource groups"
      subtitle="Named slices of costs: visibility groups decide what each team sees; budgetary groups scope budgets."
      actions={newGroup}
    >
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
        <Loaded
          state={groups}
          empty={{
            title: 'No resource groups',
            body: me.is_system_admin ? 'Create a visibility group to let a team see its costs.' : 'No group is shared with your teams.',
          }}
        >
          {(list) => (
            <DataTable label="Resource groups" rows={list} columns={columns} rowKey={(group) => group._id} csv="resource-groups" />
          )}
        </Loaded>
      </Card>
    </Page>
  );
}
