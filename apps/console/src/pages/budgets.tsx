import { useLocation } from 'preact-iso';
import { useMemo, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { Budget } from '../api/types';
import { useMe } from '../auth/me';
import { Chart } from '../components/chart';
import { type Column, DataTable } from '../components/data-table';
import { bucketLabel } from '../components/format';
import { ConfirmButton } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, ErrorBox } from '../components/states';
import { chosen, hrefOf } from '../components/url-state';
import { useAction, useApi } from '../components/use-api';
import { budgetOption } from './budget-chart';
import { blankBudget, BudgetForm } from './budget-form';
import { PERIOD_COLUMNS, thresholdList } from './budget-periods';

export default function Budgets() {
  const me = useMe();
  const location = useLocation();
  const [editing, setEditing] = useState<'new' | string | undefined>();
  const budgets = useApi(() => unwrap(costasset.GET('/api/costasset/v1/budgetController/budgets')), []);
  const units = useApi(
    async () => (await unwrap(costasset.GET('/api/costasset/v1/budgetController/budgetaryUnits'))) ?? [],
    [budgets.data],
  );
  const currencies = useApi(() => unwrap(costasset.GET('/api/costasset/v1/currency/instanceCurrencies')), []);
  const remove = useAction((id: string) =>
    unwrap(costasset.DELETE('/api/costasset/v1/budgetController/budgets/{id}', { params: { path: { id } } })),
  );

  const current = chosen(budgets.data, location.query.budget, (budget) => budget.id);
  const currentUnits = useMemo(() => (units.data ?? []).filter((unit) => unit.budgetId === current?.id), [units.data, current?.id]);
  const option = useMemo(() => (current && currentUnits.length ? budgetOption(current, currentUnits) : undefined), [current, currentUnits]);
  const choose = (id: string) => location.route(hrefOf('/budgets', { budget: id }), true);
  const editedBudget = budgets.data?.find((budget) => budget.id === editing);

  const columns: Column<Budget>[] = [
    {
      key: 'name',
      header: 'Name',
      value: (budget) => budget.name,
      cell: (budget) => (
        <button type="button" class="row-link" onClick={() => choose(budget.id)} aria-pressed={budget.id === current?.id}>
          {budget.name}
        </button>
      ),
    },
    { key: 'amount', header: 'Per month', value: (budget) => budget.amount, format: 'money', currency: (budget) => budget.currency },
    {
      key: 'scope',
      header: 'Scope',
      value: (budget) => budget.scope.expr ?? `group ${budget.scope.groupId}`,
      cell: (budget) => <code>{budget.scope.expr ?? `group ${budget.scope.groupId}`}</code>,
    },
    {
      key: 'months',
      header: 'Months',
      value: (budget) => `${budget.startPeriod}–${budget.endPeriod}`,
      cell: (budget) => `${bucketLabel(budget.startPeriod)} – ${bucketLabel(budget.endPeriod)}`,
      csv: false,
    },
    { key: 'thresholds', header: 'Thresholds', value: (budget) => thresholdList(budget.thresholds) },
    { key: 'forecastThresholds', header: 'Forecast thresholds', value: (budget) => thresholdList(budget.forecastThresholds ?? []) },
  ];
  if (me.is_system_admin)
    columns.push({
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (budget) => (
        <>
          <button type="button" class="button ghost small" onClick={() => setEditing(budget.id)}>
            Edit
          </button>
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${budget.name}`}
            busy={remove.busy}
            onConfirm={async () => (await remove.run(budget.id), budgets.reload())}
          />
        </>
      ),
    });

  const newBudget = me.is_system_admin && (
    <button type="button" class="button primary" onClick={() => setEditing('new')}>
      New budget
    </button>
  );
  return (
    <Page
      title="Budgets"
      subtitle="Monthly budgets against actual and forecast costs, with the thresholds that raise alerts."
      actions={newBudget}
    >
      {editing && (
        <Card title={editing === 'new' ? 'New budget' : `Edit ${editedBudget?.name ?? ''}`}>
          <BudgetForm
            key={editing}
            id={editing === 'new' ? undefined : editing}
            initial={editing === 'new' || !editedBudget ? blankBudget() : (({ id: _id, ...rest }) => rest)(editedBudget)}
            currencies={currencies.data?.instanceCurrencies ?? ['USD']}
            onCancel={() => setEditing(undefined)}
            onSaved={(budget) => {
              setEditing(undefined);
              budgets.reload();
              choose(budget.id);
            }}
          />
        </Card>
      )}
      {remove.error && <ErrorBox error={remove.error} />}
      <Loaded
        state={budgets}
        empty={{
          title: 'No budgets yet',
          body: me.is_system_admin ? 'Create one to follow a scope of costs month by month.' : 'A System Admin creates budgets.',
          card: true,
        }}
      >
        {(list) => (
          <>
            <Card title="All budgets">
              <DataTable
                label="All budgets"
                testId="budget-list"
                rows={list}
                columns={columns}
                rowKey={(budget) => budget.id}
                rowProps={(budget) => ({ class: budget.id === current?.id ? 'selected' : undefined })}
                csv="budgets"
              />
            </Card>
            {current && (
              <Card title={`${current.name}: actual and forecast against budget`}>
                <Loaded state={units} empty={{ title: 'No months to show for this budget.', when: () => currentUnits.length === 0 }}>
                  {() => (
                    <>
                      {option && (
                        <Chart
                          option={option}
                          height={300}
                          label={`Actual and forecast cost against the budget of ${current.name}, per month`}
                        />
                      )}
                      <DataTable
                        label={`Months of ${current.name}`}
                        testId="budget-periods"
                        dense
                        rows={currentUnits}
                        columns={PERIOD_COLUMNS}
                        rowKey={(unit) => unit.period}
                        csv={`budget ${current.name}`}
                      />
                    </>
                  )}
                </Loaded>
              </Card>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}
