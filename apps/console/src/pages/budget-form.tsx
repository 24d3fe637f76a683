import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { Budget, BudgetRequest } from '../api/types';
import { splitProblem } from '../components/expression';
import { ExpressionInput } from '../components/expression-input';
import { periodOf } from '../components/format';
import { PeriodField, SelectField, TextField } from '../components/forms';
import { ErrorBox } from '../components/states';
import { useAction } from '../components/use-api';

export function blankBudget(): BudgetRequest {
  const now = new Date();
  return {
    name: '',
    amount: 1000,
    currency: 'USD',
    scope: { expr: '' },
    startPeriod: periodOf(now, 2),
    endPeriod: periodOf(now, -9),
    thresholds: [50, 80, 100],
    forecastThresholds: [100],
  };
}

/** Percentages typed with commas (`50, 80, 100`); what is not a positive number is left out. */
export const percentages = (text: string) =>
  text
    .split(',')
    .map((value) => Number(value.trim()))
    .filter((value) => !Number.isNaN(value) && value > 0);

export function BudgetForm({
  initial,
  id,
  currencies,
  onSaved,
  onCancel,
}: {
  initial: BudgetRequest;
  id?: string;
  currencies: string[];
  onSaved: (budget: Budget) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState(initial);
  const [thresholds, setThresholds] = useState(initial.thresholds.join(', '));
  const [forecastThresholds, setForecastThresholds] = useState((initial.forecastThresholds ?? []).join(', '));
  const set = (changes: Partial<BudgetRequest>) => setForm({ ...form, ...changes });
  const save = useAction(async () => {
    const body: BudgetRequest = {
      ...form,
      amount: Number(form.amount),
      thresholds: percentages(thresholds),
      forecastThresholds: percentages(forecastThresholds),
    };
    return id
      ? unwrap(costasset.PUT('/api/costasset/v1/budgetController/budgets/{id}', { params: { path: { id } }, body }))
      : unwrap(costasset.POST('/api/costasset/v1/budgetController/budgets', { body }));
  });
  const problem = splitProblem(save.error);
  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run();
    if (saved) onSaved(saved);
  };
  return (
    <form onSubmit={submit} aria-label={id ? 'Edit budget' : 'New budget'}>
      <div class="form-grid">
        <TextField id="budget-name" label="Name" value={form.name} onValue={(name) => set({ name })} required />
        <TextField
          id="budget-amount"
          label="Amount per month"
          type="number"
          min="0"
          step="0.01"
          value={String(form.amount)}
          onValue={(amount) => set({ amount: Number(amount) })}
          required
        />
        <SelectField
          id="budget-currency"
          label="Currency"
          value={form.currency}
          onValue={(currency) => set({ currency })}
          options={currencies.map((currency) => [currency, currency] as const)}
        />
        <PeriodField id="budget-start" label="First month" value={form.startPeriod} onValue={(startPeriod) => set({ startPeriod })} />
        <PeriodField id="budget-end" label="Last month" value={form.endPeriod} onValue={(endPeriod) => set({ endPeriod })} />
        <TextField
          id="budget-thresholds"
          label="Alert thresholds (% of the amount)"
          value={thresholds}
          onValue={setThresholds}
          hint="comma-separated, e.g. 50, 80, 100"
        />
        <TextField
          id="budget-forecast-thresholds"
          label="Forecast thresholds (% of the amount)"
          value={forecastThresholds}
          onValue={setForecastThresholds}
          hint="alert when the month-end forecast reaches them first, e.g. 100"
        />
        <div class="wide">
          <ExpressionInput
            id="budget-scope"
            label="Scope (expression)"
            value={form.scope.expr ?? ''}
            onInput={(expr) => set({ scope: { expr } })}
            error={problem.expression}
            hint='The costs this budget covers, e.g. providerName == "aws" && billingAccountName == "prod"'
          />
        </div>
      </div>
      {problem.other && <ErrorBox error={problem.other} />}
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
