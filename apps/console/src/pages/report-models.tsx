import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ReportModel } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { splitProblem } from '../components/expression';
import { ExpressionInput } from '../components/expression-input';
import { SelectField, TextField } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, ErrorBox } from '../components/states';
import { chosen, hrefOf } from '../components/url-state';
import { useAction, useApi } from '../components/use-api';
import { Runner } from './report-run';

const TEMPLATES = [
  ['cost-by-provider', 'Cost by provider'],
  ['cost-by-service-category', 'Cost by service category'],
  ['cost-by-account', 'Cost by billing account'],
  ['cost-by-region', 'Cost by region'],
  ['cost-trend', 'Cost trend (per month)'],
  ['top-resources', 'Top 20 resources'],
] as const;
type TemplateId = (typeof TEMPLATES)[number][0];

function CreateForm({ onCreated, onCancel }: { onCreated: (id: string) => void; onCancel: () => void }) {
  const [templateId, setTemplate] = useState<TemplateId>('cost-by-provider');
  const [id, setId] = useState('');
  const [expr, setExpr] = useState('period == ${period}');
  const [scope, setScope] = useState<'public' | 'private'>('public');
  const [saveOutput, setSaveOutput] = useState(true);
  const [vtags, setVtags] = useState('');
  const create = useAction(() =>
    unwrap(
      costasset.POST('/api/costasset/v1/reportModels/{reportModelID}', {
        params: { path: { reportModelID: id }, query: { templateId, saveOutput } },
        body: {
          type: 'v1',
          scope,
          append: true,
          expr,
          vtags: vtags
            .split(',')
            .map((tag) => tag.trim())
            .filter(Boolean),
        },
      }),
    ),
  );
  const problem = splitProblem(create.error);
  const toggleSaveOutput = (event: Event) => setSaveOutput((event.target as HTMLInputElement).checked);
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run();
    if (created) onCreated(created.reportModelId);
  };
  return (
    <form onSubmit={submit} aria-label="New report model">
      <div class="form-grid">
        <SelectField
          id="report-template"
          label="Template"
          value={templateId}
          onValue={(value) => setTemplate(value as TemplateId)}
          options={TEMPLATES}
        />
        <TextField id="report-id" label="Id" value={id} onValue={setId} required placeholder="monthly-by-provider" />
        <SelectField
          id="report-scope"
          label="Shared with"
          value={scope}
          onValue={(value) => setScope(value as 'public' | 'private')}
          options={[
            ['public', 'Everyone in the tenant'],
            ['private', 'Only me (and System Admins)'],
          ]}
        />
        <TextField
          id="report-vtags"
          label="Visibility groups (optional)"
          value={vtags}
          onValue={setVtags}
          hint="Ids of visibility groups ANDed with the expression"
        />
        <div class="wide">
          <ExpressionInput
            id="report-expr"
            label="Expression"
            value={expr}
            onInput={setExpr}
            error={problem.expression}
            hint="${name} placeholders become parameters you fill in at each run"
          />
        </div>
        <label class="checkbox">
          <input type="checkbox" checked={saveOutput} onChange={toggleSaveOutput} /> Keep each run's output
        </label>
      </div>
      {problem.other && <ErrorBox error={problem.other} />}
      <div class="form-actions">
        <button class="button primary" type="submit" disabled={create.busy || !id}>
          {create.busy ? 'Creating…' : 'Create report model'}
        </button>
        <button class="button secondary" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export default function ReportModels() {
  const location = useLocation();
  const [creating, setCreating] = useState(false);
  const models = useApi(() => unwrap(costasset.GET('/api/costasset/v1/reportModels')), []);
  const selected = chosen(models.data, location.query.model, (model) => model.reportModelId);
  const choose = (id: string) => location.route(hrefOf('/report-models', { model: id }), true);
  const columns: Column<ReportModel>[] = [
    {
      key: 'id',
      header: 'Id',
      value: (model) => model.reportModelId,
      cell: (model) => (
        <>
          <button
            type="button"
            class="row-link"
            aria-pressed={model.reportModelId === selected?.reportModelId}
            onClick={() => choose(model.reportModelId)}
          >
            {model.reportModelId}
          </button>
          {model.scope === 'private' && <span class="badge">private</span>}
        </>
      ),
    },
    {
      key: 'template',
      header: 'Template',
      value: (model) => TEMPLATES.find(([template]) => template === model.templateId)?.[1] ?? model.templateId,
    },
    {
      key: 'parameters',
      header: 'Parameters',
      value: (model) => model.parameters.join(' '),
      cell: (model) =>
        model.parameters.length ? model.parameters.map((name) => <code key={name}>{name} </code>) : <span class="muted">none</span>,
    },
  ];
  const newModel = (
    <button type="button" class="button primary" onClick={() => setCreating(true)}>
      New report model
    </button>
  );
  return (
    <Page title="Report models" subtitle="Reusable reports from templates, run with parameters, their outputs kept." actions={newModel}>
      {creating && (
        <Card title="New report model from a template">
          <CreateForm
            onCancel={() => setCreating(false)}
            onCreated={(id) => {
              setCreating(false);
              models.reload();
              choose(id);
            }}
          />
        </Card>
      )}
      <Loaded state={models} empty={{ title: 'No report models yet', body: 'Create one from a template.', card: true }}>
        {(list) => (
          <div class="split">
            <Card title="Models">
              <DataTable
                label="Report models"
                rows={list}
                columns={columns}
                rowKey={(model) => model.reportModelId}
                rowProps={(model) => ({ class: model.reportModelId === selected?.reportModelId ? 'selected' : undefined })}
                csv="report-models"
              />
            </Card>
            {selected && (
              <Card title={`Run ${selected.reportModelId}`}>
                <p class="muted small">
                  <code>{selected.expr}</code>
                </p>
                <Runner key={selected.reportModelId} model={selected} />
              </Card>
            )}
          </div>
        )}
      </Loaded>
    </Page>
  );
}
