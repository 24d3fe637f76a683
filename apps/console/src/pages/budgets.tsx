import { useLocation } from 'preact-iso';
import { useMemo, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { Budget, BudgetaryUnit, BudgetRequest } from '../api/types';
import { useMe } from '../auth/me';
import { Chart, PALETTE } from '../components/chart';
import { ExpressionInput } from '../components/expression-input';
import { bucketLabel, money, percent, periodOf } from '../components/format';
import { ConfirmButton, PeriodField, SelectField, TextField } from '../components/forms';
import { Card, Empty, ErrorBox, Loading, PageHeader } from '../components/states';
import { useAction, useApi } from '../components/use-api';

/** Actual cost per period as bars, the budget as a line, each threshold as a dashed line. */
function budgetOption(budget: Budget, units: BudgetaryUnit[]) {
  const currency = units[0]?.currency ?? budget.currency;
  const amount = units[0]?.amount ?? budget.amount;
  return {
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => money(value, currency) },
    legend: { bottom: 0 },
    grid: { left: 8, right: 60, top: 24, bottom: 40, containLabel: true },
    xAxis: { type: 'category', data: units.map((unit) => bucketLabel(unit.period)) },
    yAxis: { type: 'value', axisLabel: { formatter: (value: number) => money(value, currency, true) }, splitLine: { lineStyle: { color: '#e2e8f0' } } },
    series: [
      {
        name: 'Actual',
        type: 'bar',
        barMaxWidth: 42,
        data: units.map((unit) => ({ value: unit.actual, itemStyle: { color: unit.percentUsed >= 100 ? '#ef4444' : unit.percentUsed >= Math.min(...budget.thresholds, 100) ? '#f59e0b' : PALETTE[0] } })),
        markLine: {
          symbol: 'none',
          lineStyle: { type: 'dashed', color: '#94a3b8' },
          label: { formatter: (params: { value: number }) => `${Math.round((params.value / amount) * 100)}%`, position: 'end' },
          data: budget.thresholds.map((threshold) => ({ yAxis: (amount * threshold) / 100 })),
        },
      },
      { name: 'Budget', type: 'line', step: 'middle', symbol: 'none', lineStyle: { width: 2, color: '#0f172a' }, itemStyle: { color: '#0f172a' }, data: units.map((unit) => unit.amount) },
    ],
  };
}

function blankBudget(): BudgetRequest {
  const now = new Date();
  return { name: '', amount: 1000, currency: 'USD', scope: { expr: '' }, startPeriod: periodOf(now, 2), endPeriod: periodOf(now, -9), thresholds: [50, 80, 100] };
}

function BudgetForm({ initial, id, currencies, onSaved, onCancel }: { initial: BudgetRequest; id?: string; currencies: string[]; onSaved: (budget: Budget) => void; onCancel: () => void }) {
  const [form, setForm] = useState(initial);
  const [thresholds, setThresholds] = useState(initial.thresholds.join(', '));
  const set = (changes: Partial<BudgetRequest>) => setForm({ ...form, ...changes });
  const save = useAction(async () => {
    const body: BudgetRequest = { ...form, amount: Number(form.amount), thresholds: thresholds.split(',').map((value) => Number(value.trim())).filter((value) => !Number.isNaN(value) && value > 0) };
    return id
      ? unwrap(costasset.PUT('/api/costasset/v1/budgetController/budgets/{id}', { params: { path: { id } }, body }))
      : unwrap(costasset.POST('/api/costasset/v1/budgetController/budgets', { body }));
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run();
    if (saved) onSaved(saved);
  };
  return (
    <form onSubmit={submit} aria-label={id ? 'Edit budget' : 'New budget'}>
      <div class="form-grid">
        <TextField id="budget-name" label="Name" value={form.name} onValue={(name) => set({ name })} required />
        <TextField id="budget-amount" label="Amount per month" type="number" min="0" step="0.01" value={String(form.amount)} onValue={(amount) => set({ amount: Number(amount) })} required />
        <SelectField id="budget-currency" label="Currency" value={form.currency} onValue={(currency) => set({ currency })} options={currencies.map((currency) => [currency, currency] as const)} />
        <PeriodField id="budget-start" label="First month" value={form.startPeriod} onValue={(startPeriod) => set({ startPeriod })} />
        <PeriodField id="budget-end" label="Last month" value={form.endPeriod} onValue={(endPeriod) => set({ endPeriod })} />
        <TextField id="budget-thresholds" label="Alert thresholds (% of the amount)" value={thresholds} onValue={setThresholds} hint="comma-separated, e.g. 50, 80, 100" />
        <div class="wide">
          <ExpressionInput
            id="budget-scope"
            label="Scope (expression)"
            value={form.scope.expr ?? ''}
            onInput={(expr) => set({ scope: { expr } })}
            error={save.error?.position !== undefined ? save.error : undefined}
            hint='The costs this budget covers, e.g. providerName == "aws" && billingAccountName == "prod"'
          />
        </div>
      </div>
      {save.error && save.error.position === undefined && <ErrorBox error={save.error} />}
      <div class="form-actions">
        <button class="button primary" type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : id ? 'Save budget' : 'Create budget'}
        </button>
        <button class="button secondary" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export default function Budgets() {
  const me = useMe();
  const location = useLocation();
  const selected = location.query.budget;
  const [editing, setEditing] = useState<'new' | string | undefined>();
  const budgets = useApi(() => unwrap(costasset.GET('/api/costasset/v1/budgetController/budgets')), []);
  const units = useApi(async () => (await unwrap(costasset.GET('/api/costasset/v1/budgetController/budgetaryUnits'))) ?? [], [budgets.data]);
  const currencies = useApi(() => unwrap(costasset.GET('/api/costasset/v1/currency/instanceCurrencies')), []);
  const remove = useAction((id: string) => unwrap(costasset.DELETE('/api/costasset/v1/budgetController/budgets/{id}', { params: { path: { id } } })));

  const current = budgets.data?.find((budget) => budget.id === selected) ?? budgets.data?.[0];
  const currentUnits = useMemo(() => (units.data ?? []).filter((unit) => unit.budgetId === current?.id), [units.data, current?.id]);
  const option = useMemo(() => (current && currentUnits.length ? budgetOption(current, currentUnits) : undefined), [current, currentUnits]);
  const choose = (id: string) => location.route(`/budgets?budget=${encodeURIComponent(id)}`, true);
  const instanceCurrencies = currencies.data?.instanceCurrencies ?? ["USD"];

  const editor = editing && (
    <Card title={editing === 'new' ? 'New budget' : `Edit ${budgets.data?.find((budget) => budget.id === editing)?.name ?? ''}`}>
      <BudgetForm
        key={editing}
        id={editing === 'new' ? undefined : editing}
        initial={editing === 'new' ? blankBudget() : (({ id: _id, ...rest }) => rest)(budgets.data!.find((budget) => budget.id === editing)!)}
        currencies={instanceCurrencies}
        onCancel={() => setEditing(undefined)}
        onSaved={(budget) => {
          setEditing(undefined);
          budgets.reload();
          choose(budget.id);
        }}
      />
    </Card>
  );

  return (
    <div class="page">
      <PageHeader
        title="Budgets"
        subtitle="Monthly budgets against actual costs, with the thresholds that raise alerts."
        actions={
          me.is_system_admin && (
            <button type="button" class="button primary" onClick={() => setEditing('new')}>
              New budget
            </button>
          )
        }
      />
      {editor}
      {remove.error && <ErrorBox error={remove.error} />}
      {budgets.error ? (
        <ErrorBox error={budgets.error} onRetry={budgets.reload} />
      ) : !budgets.data ? (
        <Loading />
      ) : budgets.data.length === 0 ? (
        <Card>
          <Empty title="No budgets yet">{me.is_system_admin ? 'Create one to follow a scope of costs month by month.' : 'A System Admin creates budgets.'}</Empty>
        </Card>
      ) : (
        <>
          <Card title="All budgets">
            <div class="table-scroll">
              <table class="table" data-testid="budget-list">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col" class="num">
                      Per month
                    </th>
                    <th scope="col">Scope</th>
                    <th scope="col">Months</th>
                    <th scope="col">Thresholds</th>
                    {me.is_system_admin && <th scope="col" class="actions"><span class="muted">Actions</span></th>}
                  </tr>
                </thead>
                <tbody>
                  {budgets.data.map((budget) => (
                    <tr key={budget.id} class={budget.id === current?.id ? 'selected' : ''}>
                      <td>
                        <button type="button" class="row-link" onClick={() => choose(budget.id)} aria-pressed={budget.id === current?.id}>
                          {budget.name}
                        </button>
                      </td>
                      <td class="num">{money(budget.amount, budget.currency)}</td>
                      <td>
                        <code>{budget.scope.expr ?? `group ${budget.scope.groupId}`}</code>
                      </td>
                      <td>
                        {bucketLabel(budget.startPeriod)} – {bucketLabel(budget.endPeriod)}
                      </td>
                      <td>{budget.thresholds.map((threshold) => `${threshold}%`).join(', ')}</td>
                      {me.is_system_admin && (
                        <td class="actions">
                          <button type="button" class="button ghost small" onClick={() => setEditing(budget.id)}>
                            Edit
                          </button>
                          <ConfirmButton label="Delete" confirmLabel={`Delete ${budget.name}`} busy={remove.busy} onConfirm={async () => (await remove.run(budget.id), budgets.reload())} />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Card>
          {current && (
            <Card title={`${current.name}: actual against budget`}>
              {units.error ? (
                <ErrorBox error={units.error} onRetry={units.reload} />
              ) : !units.data ? (
                <Loading />
              ) : currentUnits.length === 0 ? (
                <Empty title="No months to show for this budget." />
              ) : (
                <>
                  {option && <Chart option={option} height={300} label={`Actual cost against the budget of ${current.name}, per month`} />}
                  <div class="table-scroll">
                    <table class="table dense" data-testid="budget-periods">
                      <thead>
                        <tr>
                          <th scope="col">Month</th>
                          <th scope="col" class="num">Budget</th>
                          <th scope="col" class="num">Actual</th>
                          <th scope="col" class="num">Remaining</th>
                          <th scope="col" class="num">Used</th>
                          <th scope="col">Thresholds crossed</th>
                        </tr>
                      </thead>
                      <tbody>
                        {currentUnits.map((unit) => (
                          <tr key={unit.period}>
                            <th scope="row">{bucketLabel(unit.period, true)}</th>
                            <td class="num">{money(unit.amount, unit.currency)}</td>
                            <td class="num" data-testid={`actual-${unit.period}`}>
                              {money(unit.actual, unit.currency)}
                            </td>
                            <td class="num">{money(unit.remaining, unit.currency)}</td>
                            <td class="num">
                              <span class={`badge ${unit.percentUsed >= 100 ? 'bad' : unit.thresholdsCrossed.length ? 'warn' : 'ok'}`}>{percent(unit.percentUsed, 0)}</span>
                            </td>
                            <td>{unit.thresholdsCrossed.length ? unit.thresholdsCrossed.map((threshold) => `${threshold}%`).join(', ') : <span class="muted">none</span>}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </>
              )}
            </Card>
          )}
        </>
      )}
    </div>
  );
}
