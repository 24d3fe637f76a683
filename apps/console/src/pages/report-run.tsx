import { useMemo, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ReportExecution, ReportModel } from '../api/types';
import { Chart, PALETTE } from '../components/chart';
import { type Column, DataTable } from '../components/data-table';
import { bucketLabel, money, periodOf } from '../components/format';
import { TextField } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Empty, ErrorBox } from '../components/states';
import { type ApiState, useAction, useApi } from '../components/use-api';

/** A fresh execution or a saved output (saved outputs do not record where the sums came from). */
type ShownOutput = Omit<ReportExecution, 'source' | 'rollupLevel'>;
type OutputRow = ShownOutput['rows'][number];
type SavedOutput = ShownOutput & { id: string; params: unknown; executedBy: string; generatedAt: string };

const rowLabel = (key: Record<string, string | null>) =>
  Object.values(key)
    .map((value) => (value === null ? '(none)' : /^\d{6}$/.test(value) ? bucketLabel(value) : value))
    .join(' · ');

function outputOption(result: ShownOutput) {
  const trend = result.templateId === 'cost-trend';
  return {
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => money(value, result.currency) },
    grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
    xAxis: trend
      ? { type: 'category', data: result.rows.map((row) => rowLabel(row.key)) }
      : { type: 'value', axisLabel: { formatter: (value: number) => money(value, result.currency, true) } },
    yAxis: trend
      ? { type: 'value', axisLabel: { formatter: (value: number) => money(value, result.currency, true) } }
      : {
          type: 'category',
          inverse: true,
          data: result.rows.map((row) => rowLabel(row.key)),
          axisLabel: { width: 180, overflow: 'truncate' },
        },
    series: [
      trend
        ? {
            type: 'line',
            smooth: true,
            areaStyle: { opacity: 0.15 },
            data: result.rows.map((row) => row.cost),
            itemStyle: { color: PALETTE[0] },
          }
        : {
            type: 'bar',
            barMaxWidth: 22,
            data: result.rows.map((row) => row.cost),
            itemStyle: { color: PALETTE[0], borderRadius: [0, 4, 4, 0] },
          },
    ],
  };
}

function Output({ result }: { result: ShownOutput }) {
  const option = useMemo(() => outputOption(result), [result]);
  const columns = useMemo(
    (): Column<OutputRow>[] => [
      {
        key: 'key',
        header: Object.keys(result.rows[0]?.key ?? {}).join(' · ') || 'Row',
        value: (row) => rowLabel(row.key),
        rowHeader: true,
      },
      { key: 'cost', header: 'Cost', value: (row) => row.cost, format: 'money', currency: () => result.currency },
      { key: 'lineItems', header: 'Line items', value: (row) => row.lineItems, format: 'number' },
    ],
    [result],
  );
  if (result.rows.length === 0) return <Empty title="The report selects no costs you can see." />;
  return (
    <div class="grid" data-testid="report-output">
      <Chart
        option={option}
        height={Math.max(220, Math.min(result.rows.length, 20) * 28 + 40)}
        label={`Report ${result.reportModelId}: ${result.templateId}`}
      />
      <DataTable
        label={`Output of ${result.reportModelId}`}
        dense
        rows={result.rows}
        columns={columns}
        rowKey={(row) => JSON.stringify(row.key)}
        footer={['Total', money(result.total, result.currency), '']}
        csv={`report ${result.reportModelId}`}
      />
    </div>
  );
}

function SavedOutputs({
  model,
  outputs,
  onShow,
}: {
  model: ReportModel;
  outputs: ApiState<{ items: SavedOutput[] } | undefined>;
  onShow: (output: SavedOutput) => void;
}) {
  const columns: Column<SavedOutput>[] = [
    { key: 'at', header: 'Run at', value: (output) => output.generatedAt, format: 'date' },
    {
      key: 'params',
      header: 'Parameters',
      value: (output) => JSON.stringify(output.params),
      cell: (output) => <code>{JSON.stringify(output.params)}</code>,
    },
    { key: 'by', header: 'By', value: (output) => output.executedBy },
    { key: 'rows', header: 'Rows', value: (output) => output.rows.length, format: 'number' },
    { key: 'total', header: 'Total', value: (output) => output.total, format: 'money', currency: (output) => output.currency },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (output) => (
        <button type="button" class="button ghost small" onClick={() => onShow(output)}>
          Show
        </button>
      ),
    },
  ];
  return (
    <div>
      <h3 style={{ marginBottom: '6px' }}>Saved outputs</h3>
      <Loaded
        state={outputs}
        empty={{ title: 'No saved outputs yet', body: `Each run is saved${model.append ? ' and kept' : ', replacing the previous one'}.` }}
      >
        {(page) => (
          <DataTable
            label={`Saved outputs of ${model.reportModelId}`}
            dense
            rows={page.items}
            columns={columns}
            rowKey={(output) => output.id}
          />
        )}
      </Loaded>
    </div>
  );
}

/** The parameters of a model, its run, and its saved outputs. */
export function Runner({ model }: { model: ReportModel }) {
  const [params, setParams] = useState<Record<string, string>>(() =>
    Object.fromEntries(model.parameters.map((name) => [name, name === 'period' ? periodOf(new Date(), 1) : ''])),
  );
  const [result, setResult] = useState<ShownOutput>();
  const run = useAction(() =>
    unwrap(
      costasset.GET('/api/costasset/v1/reportModels/{reportModelID}/execution', {
        params: { path: { reportModelID: model.reportModelId }, query: { templateParams: JSON.stringify(params) } },
      }),
    ),
  );
  const outputs = useApi(
    async () =>
      model.saveOutput
        ? unwrap(
            costasset.GET('/api/costasset/v1/reportModels/{reportModelID}/outputs', {
              params: { path: { reportModelID: model.reportModelId }, query: { limit: 20 } },
            }),
          )
        : undefined,
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
            <TextField
              key={name}
              id={`param-${name}`}
              label={`Parameter ${name}`}
              value={params[name] ?? ''}
              onValue={(value) => setParams({ ...params, [name]: value })}
              hint={name === 'period' ? 'YYYYMM' : undefined}
            />
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
      {model.saveOutput && <SavedOutputs model={model} outputs={outputs} onShow={setResult} />}
    </div>
  );
}
