import { useLocation } from 'preact-iso';
import { useMemo, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ReportExecution, ReportModel } from '../api/types';

/** A fresh execution or a saved output (saved outputs do not record where the sums came from). */
type ShownOutput = Omit<ReportExecution, 'source' | 'rollupLevel'>;
import { Chart, PALETTE } from '../components/chart';
import { ExpressionInput } from '../components/expression-input';
import { bucketLabel, dateTime, money, number, periodOf } from '../components/format';
import { SelectField, TextField } from '../components/forms';
import { Card, Empty, ErrorBox, Loading, PageHeader } from '../components/states';
import { useAction, useApi } from '../components/use-api';

const TEMPLATES = [
  ['cost-by-provider', 'Cost by provider'],
  ['cost-by-service-category', 'Cost by service category'],
  ['cost-by-account', 'Cost by billing account'],
  ['cost-by-region', 'Cost by region'],
  ['cost-trend', 'Cost trend (per month)'],
  ['top-resources', 'Top 20 resources'],
] as const;
type TemplateId = (typeof TEMPLATES)[number][0];

const rowLabel = (key: Record<string, string | null>) => Object.values(key).map((value) => (value === null ? '(none)' : /^\d{6}$/.test(value) ? bucketLabel(value) : value)).join(' · ');

function outputOption(result: ShownOutput) {
  const trend = result.templateId === 'cost-trend';
  return {
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => money(value, result.currency) },
    grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
    xAxis: trend ? { type: 'category', data: result.rows.map((row) => rowLabel(row.key)) } : { type: 'value', axisLabel: { formatter: (value: number) => money(value, result.currency, true) } },
    yAxis: trend ? { type: 'value', axisLabel: { formatter: (value: number) => money(value, result.currency, true) } } : { type: 'category', inverse: true, data: result.rows.map((row) => rowLabel(row.key)), axisLabel: { width: 180, overflow: 'truncate' } },
    series: [
      trend
        ? { type: 'line', smooth: true, areaStyle: { opacity: 0.15 }, data: result.rows.map((row) => row.cost), itemStyle: { color: PALETTE[0] } }
        : { type: 'bar', barMaxWidth: 22, data: result.rows.map((row) => row.cost), itemStyle: { color: PALETTE[0], borderRadius: [0, 4, 4, 0] } },
    ],
  };
}

function Output({ result }: { result: ShownOutput }) {
  const option = useMemo(() => outputOption(result), [result]);
  if (result.rows.length === 0) return <Empty title="The report selects no costs you can see." />;
  return (
    <div class="grid" data-testid="report-output">
      <Chart option={option} height={Math.max(220, Math.min(result.rows.length, 20) * 28 + 40)} label={`Report ${result.reportModelId}: ${result.templateId}`} />
      <div class="table-scroll">
        <table class="table dense">
          <thead>
            <tr>
              <th scope="col">{Object.keys(result.rows[0].key).join(' · ')}</th>
              <th scope="col" class="num">Cost</th>
              <th scope="col" class="num">Line items</th>
            </tr>
          </thead>
          <tbody>
            {result.rows.map((row, index) => (
              <tr key={index}>
                <th scope="row">{rowLabel(row.key)}</th>
                <td class="num">{money(row.cost, result.currency)}</td>
                <td class="num">{number(row.lineItems)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td class="num">{money(result.total, result.currency)}</td>
              <td />
            </tr>
          </tfoot>
        </table>
      </div>
    </div>
  );
}

function Runner({ model }: { model: ReportModel }) {
  const [params, setParams] = useState<Record<string, string>>(() => Object.fromEntries(model.parameters.map((name) => [name, name === 'period' ? periodOf(new Date(), 1) : ''])));
  const [result, setResult] = useState<ShownOutput>();
  const run = useAction(() =>
    unwrap(costasset.GET('/api/costasset/v1/reportModels/{reportModelID}/execution', { params: { path: { reportModelID: model.reportModelId }, query: { templateParams: JSON.stringify(params) } } })),
  );
  const outputs = useApi(
    async () => (model.saveOutput ? unwrap(costasset.GET('/api/costasset/v1/reportModels/{reportModelID}/outputs', { params: { path: { reportModelID: model.reportModelId }, query: { limit: 20 } } })) : undefined),
    [model.reportModelId, result],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const answer = await run.run();
    if (answer) setResult(answer);
  };
  return (
    <div class="grid">
      <form onSubmit={submit} aria-label={`Run ${model.reportModelId}`}>
        <div class="form-grid">
          {model.parameters.map((name) => (
            <TextField key={name} id={`param-${name}`} label={`Parameter ${name}`} value={params[name] ?? ''} onValue={(value) => setParams({ ...params, [name]: value })} hint={name === 'period' ? 'YYYYMM' : undefined} />
          ))}
        </div>
        {model.parameters.length === 0 && <p class="muted">This model has no parameters.</p>}
        <div class="form-actions">
          <button class="button primary" type="submit" disabled={run.busy}>
            {run.busy ? 'Running…' : 'Run report'}
          </button>
        </div>
      </form>
      {run.error && <ErrorBox error={run.error} />}
      {result && <Output result={result} />}
      {model.saveOutput && (
        <div>
          <h3 style={{ marginBottom: '6px' }}>Saved outputs</h3>
          {outputs.error ? (
            <ErrorBox error={outputs.error} />
          ) : !outputs.data ? (
            <Loading />
          ) : outputs.data.items.length === 0 ? (
            <p class="muted">None yet: each run is saved{model.append ? ' and kept' : ', replacing the previous one'}.</p>
          ) : (
            <table class="table dense">
              <thead>
                <tr>
                  <th scope="col">Run at</th>
                  <th scope="col">Parameters</th>
                  <th scope="col">By</th>
                  <th scope="col" class="num">Rows</th>
                  <th scope="col" class="num">Total</th>
                  <th scope="col" class="actions"><span class="muted">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {outputs.data.items.map((output) => (
                  <tr key={output.id}>
                    <td>{dateTime(output.generatedAt)}</td>
                    <td>
                      <code>{JSON.stringify(output.params)}</code>
                    </td>
                    <td>{output.executedBy}</td>
                    <td class="num">{output.rows.length}</td>
                    <td class="num">{money(output.total, output.currency)}</td>
                    <td class="actions">
                      <button type="button" class="button ghost small" onClick={() => setResult(output)}>
                        Show
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </div>
  );
}

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
        body: { type: 'v1', scope, append: true, expr, vtags: vtags.split(',').map((tag) => tag.trim()).filter(Boolean) },
      }),
    ),
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run();
    if (created) onCreated(created.reportModelId);
  };
  return (
    <form onSubmit={submit} aria-label="New report model">
      <div class="form-grid">
        <SelectField id="report-template" label="Template" value={templateId} onValue={(value) => setTemplate(value as TemplateId)} options={TEMPLATES} />
        <TextField id="report-id" label="Id" value={id} onValue={setId} required placeholder="monthly-by-provider" />
        <SelectField id="report-scope" label="Shared with" value={scope} onValue={(value) => setScope(value as 'public' | 'private')} options={[['public', 'Everyone in the tenant'], ['private', 'Only me (and System Admins)']]} />
        <TextField id="report-vtags" label="Visibility groups (optional)" value={vtags} onValue={setVtags} hint="Ids of visibility groups ANDed with the expression" />
        <div class="wide">
          <ExpressionInput id="report-expr" label="Expression" value={expr} onInput={setExpr} error={create.error?.position !== undefined ? create.error : undefined} hint="${name} placeholders become parameters you fill in at each run" />
        </div>
        <label class="checkbox">
          <input type="checkbox" checked={saveOutput} onChange={(event) => setSaveOutput((event.target as HTMLInputElement).checked)} /> Keep each run's output
        </label>
      </div>
      {create.error && create.error.position === undefined && <ErrorBox error={create.error} />}
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
  const selected = models.data?.find((model) => model.reportModelId === location.query.model) ?? models.data?.[0];
  const choose = (id: string) => location.route(`/report-models?model=${encodeURIComponent(id)}`, true);
  return (
    <div class="page">
      <PageHeader
        title="Report models"
        subtitle="Reusable reports from templates, run with parameters, their outputs kept."
        actions={
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            New report model
          </button>
        }
      />
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
      {models.error ? (
        <ErrorBox error={models.error} onRetry={models.reload} />
      ) : !models.data ? (
        <Loading />
      ) : models.data.length === 0 ? (
        <Card>
          <Empty title="No report models yet">Create one from a template.</Empty>
        </Card>
      ) : (
        <div class="split">
          <Card title="Models">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Template</th>
                  <th scope="col">Parameters</th>
                </tr>
              </thead>
              <tbody>
                {models.data.map((model) => (
                  <tr key={model.reportModelId} class={model.reportModelId === selected?.reportModelId ? 'selected' : ''}>
                    <td>
                      <button type="button" class="row-link" aria-pressed={model.reportModelId === selected?.reportModelId} onClick={() => choose(model.reportModelId)}>
                        {model.reportModelId}
                      </button>
                      {model.scope === 'private' && <span class="badge">private</span>}
                    </td>
                    <td>{TEMPLATES.find(([template]) => template === model.templateId)?.[1] ?? model.templateId}</td>
                    <td>{model.parameters.length ? model.parameters.map((name) => <code key={name}>{name} </code>) : <span class="muted">none</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
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
    </div>
  );
}
