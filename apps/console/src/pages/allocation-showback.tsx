import { useLocation } from 'preact-iso';
import { useMemo } from 'preact/hooks';
import { costasset, download, unwrap } from '../api/client';
import type { AllocationSettings, ShowbackLine } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { bucketLabel, money } from '../components/format';
import { Loaded } from '../components/loaded';
import { Card, Empty, ErrorBox } from '../components/states';
import { chosen, hrefOf } from '../components/url-state';
import { useAction, useApi } from '../components/use-api';
import { groupingChoices, monthInput, periodOfInput } from './allocation-logic';
import { SplitFlow } from './split-flow';
import { showbackTotals, valueLabel } from './split-logic';

const PATH = '/api/costasset/v1/allocation/showback';

/**
 * The monthly showback statement of a dimension (or an activated tag key): per value its direct
 * cost, the shared cost split rules gave it and the total, the unallocated line always shown; the
 * same statement as CSV or FOCUS CSV, and the flow of the month's splits.
 */
export function Showback({ settings }: { settings: AllocationSettings }) {
  const location = useLocation();
  const choices = groupingChoices(settings);
  const dimension = chosen(choices, location.query.dimension, ([value]) => value)?.[0];
  const period = /^\d{6}$/.test(location.query.period ?? '') ? location.query.period : undefined;
  const setView = (changes: { dimension?: string; period?: string }) =>
    location.route(hrefOf('/allocation/showback', { dimension, period, ...changes }), true);
  const statement = useApi(
    () =>
      dimension
        ? unwrap(costasset.GET(PATH, { params: { query: { dimension, ...(period ? { period } : {}) } } }))
        : Promise.resolve(undefined),
    [dimension, period],
  );
  const exporting = useAction((format: 'csv' | 'focus') => {
    const query = new URLSearchParams({ dimension: dimension!, period: statement.data!.period, format });
    return download(PATH, query);
  });
  const currency = statement.data?.currency;
  const columns = useMemo(
    (): Column<ShowbackLine>[] => [
      {
        key: 'value',
        header: 'Value',
        value: (line) => valueLabel(line.value),
        rowHeader: true,
        cell: (line) => (
          <>
            {valueLabel(line.value)}
            {line.unallocated && (
              <>
                {' '}
                <span class="badge warn" title="What no rule allocates">
                  unallocated
                </span>
              </>
            )}
          </>
        ),
      },
      { key: 'direct', header: 'Direct', value: (line) => line.direct, format: 'money', currency: () => currency },
      {
        key: 'shared',
        header: 'Shared',
        value: (line) => line.shared,
        format: 'money',
        currency: () => currency,
        cell: (line) => (
          <span title={line.received.map((entry) => `${entry.rule}: ${money(entry.amount, currency)}`).join('\n') || undefined}>
            {money(line.shared, currency)}
            {line.received.length > 0 && (
              <span class="muted small received">
                {line.received.map((entry) => (
                  <span key={entry.rule}>
                    {entry.rule}: {money(entry.amount, currency)}
                  </span>
                ))}
              </span>
            )}
          </span>
        ),
      },
      { key: 'total', header: 'Total', value: (line) => line.total, format: 'money', currency: () => currency },
    ],
    [currency],
  );

  if (choices.length === 0)
    return (
      <Card>
        <Empty title="Create a dimension first">
          A showback statement is by the values of a dimension or an activated tag key.{' '}
          <a href="/allocation/dimensions">Create a dimension</a> (or activate a tag key) first.
        </Empty>
      </Card>
    );
  const controls = (
    <div class="inline range">
      <div class="field">
        <label for="showback-dimension">Dimension</label>
        <select
          id="showback-dimension"
          value={dimension}
          onChange={(event) => setView({ dimension: (event.target as HTMLSelectElement).value })}
        >
          {choices.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="showback-period">Month</label>
        <input
          id="showback-period"
          type="month"
          value={monthInput(period || statement.data?.period)}
          onChange={(event) => setView({ period: periodOfInput((event.target as HTMLInputElement).value) || undefined })}
        />
      </div>
    </div>
  );
  return (
    <>
      <Card title="Showback" actions={controls}>
        <p class="muted small">
          Per value: <strong>direct</strong>, its own cost less what split rules took from it; <strong>shared</strong>, what split rules
          gave it; and the <strong>total</strong>. The unallocated line is always shown, even at zero. The explorer shows the same figures
          over several months as allocated cost.
        </p>
        {exporting.error && <ErrorBox error={exporting.error} />}
        <Loaded state={statement} label="Reading the statement…">
          {(data) => {
            const totals = showbackTotals(data.lines);
            return (
              <>
                <div class="showback-head">
                  <p class="small" data-testid="showback-period">
                    {bucketLabel(data.period, true)}
                    {!period && ' (the latest month with data)'} · {data.dimension} · {data.currency}
                    {data.source === 'line-items' && (
                      <span class="muted"> · read from the line items while the rollups are recomputed</span>
                    )}
                  </p>
                  <div class="inline" role="group" aria-label="Download the statement">
                    <button type="button" class="button secondary small" disabled={exporting.busy} onClick={() => exporting.run('csv')}>
                      {exporting.busy ? 'Preparing…' : 'Download CSV'}
                    </button>
                    <button type="button" class="button secondary small" disabled={exporting.busy} onClick={() => exporting.run('focus')}>
                      Download FOCUS CSV
                    </button>
                  </div>
                </div>
                <DataTable
                  label={`Showback by ${data.dimension}`}
                  testId="showback"
                  rows={data.lines}
                  columns={columns}
                  rowKey={(line) => valueLabel(line.value)}
                  rowProps={(line) => ({
                    'data-value': line.value ?? '',
                    'data-unallocated': line.unallocated ? 'true' : undefined,
                    class: line.unallocated ? 'unallocated' : undefined,
                  })}
                  footer={[
                    'Total',
                    <span data-testid="showback-direct">{money(totals.direct, data.currency)}</span>,
                    <span data-testid="showback-shared">{money(totals.shared, data.currency)}</span>,
                    <span data-testid="showback-total">{money(data.total, data.currency)}</span>,
                  ]}
                />
              </>
            );
          }}
        </Loaded>
      </Card>
      {statement.data && (
        <Card title="Where the shared cost goes">
          <SplitFlow splits={statement.data.splits} currency={statement.data.currency} period={statement.data.period} />
        </Card>
      )}
    </>
  );
}
