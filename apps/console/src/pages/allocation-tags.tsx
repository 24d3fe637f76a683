import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { AllocationSettings } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { bucketLabel, money, number, percent } from '../components/format';
import { Loaded } from '../components/loaded';
import { Card, ErrorBox } from '../components/states';
import { useAction, useApi } from '../components/use-api';
import { monthInput, periodOfInput, tagKeyId, tagKeyName, type TagKeyRow, tagKeyRows } from './allocation-logic';

/** Coverage as a bar and a percentage (the bar is decoration: the text says it). */
function Coverage({ value }: { value: number }) {
  const shown = Math.min(Math.max(value, 0), 1) * 100;
  return (
    <div class="coverage">
      <div class="meter" aria-hidden="true">
        <span class={shown >= 50 ? '' : shown >= 10 ? 'busy' : 'warn'} style={{ width: `${shown}%` }} />
      </div>
      <span>{percent(value * 100)}</span>
    </div>
  );
}

/**
 * The tag keys of the line items of a range of periods (the latest with data by default): the
 * share of cost carrying each, and Activate / Deactivate (a rollup dimension of its own).
 */
export function TagKeys({ settings, onChanged, currency }: { settings?: AllocationSettings; onChanged: () => void; currency: string }) {
  const [range, setRange] = useState<{ from: string; to: string }>({ from: '', to: '' });
  const observed = useApi(
    () =>
      unwrap(
        costasset.GET('/api/costasset/v1/allocation/tagKeys', {
          params: { query: { ...(range.from ? { from: range.from } : {}), ...(range.to ? { to: range.to } : {}) } },
        }),
      ),
    [range.from, range.to],
  );
  const toggle = useAction(async (row: TagKeyRow) => {
    const body = { group: row.activation ? row.activation.group : row.group, key: row.key };
    await unwrap(
      row.active
        ? costasset.POST('/api/costasset/v1/allocation/tagKeys/deactivate', { body })
        : costasset.POST('/api/costasset/v1/allocation/tagKeys/activate', { body }),
    );
    onChanged();
  });
  const columns: Column<TagKeyRow>[] = [
    {
      key: 'key',
      header: 'Tag key',
      value: (row) => tagKeyName(row.group, row.key),
      rowHeader: true,
      cell: (row) => <span class="mono">{tagKeyName(row.group, row.key)}</span>,
    },
    {
      key: 'coverage',
      header: 'Coverage',
      value: (row) => row.coverage,
      align: 'start',
      cell: (row) => (row.observed ? <Coverage value={row.coverage} /> : <span class="muted">not seen in these periods</span>),
      testId: (row) => `coverage-${tagKeyId(row)}`,
    },
    { key: 'cost', header: 'Cost', value: (row) => row.cost, format: 'money', currency: () => currency },
    { key: 'lineItems', header: 'Line items', value: (row) => row.lineItems, format: 'number' },
    {
      key: 'status',
      header: 'Status',
      value: (row) => (row.active ? 'active' : 'not active'),
      cell: (row) =>
        row.active ? (
          <span class="badge ok" title={row.activation?.activatedBy ? `Activated by ${row.activation.activatedBy}` : undefined}>
            {row.activation?.group === null && row.group !== null ? 'active (every group)' : 'active'}
          </span>
        ) : (
          <span class="badge idle">not active</span>
        ),
    },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (row) => (
        <button
          type="button"
          class={`button small ${row.active ? 'secondary' : 'primary'}`}
          disabled={toggle.busy}
          aria-label={`${row.active ? 'Deactivate' : 'Activate'} ${tagKeyName(row.group, row.key)}`}
          onClick={() => toggle.run(row)}
        >
          {row.active ? 'Deactivate' : 'Activate'}
        </button>
      ),
    },
  ];
  const bounds = (
    <div class="inline range">
      <div class="field">
        <label for="tags-from">From</label>
        <input
          id="tags-from"
          type="month"
          value={monthInput(range.from || observed.data?.from)}
          onChange={(event) => setRange({ ...range, from: periodOfInput((event.target as HTMLInputElement).value) })}
        />
      </div>
      <div class="field">
        <label for="tags-to">To</label>
        <input
          id="tags-to"
          type="month"
          value={monthInput(range.to || observed.data?.to)}
          onChange={(event) => setRange({ ...range, to: periodOfInput((event.target as HTMLInputElement).value) })}
        />
      </div>
    </div>
  );
  return (
    <Card title="Tag keys" actions={bounds}>
      <p class="muted small">
        Activate the keys people group and filter by: the explorer, budgets and visibility groups then read them from the rollups instead of
        every line item. Coverage is the share of the periods&rsquo; cost whose line items carry the key.
      </p>
      {toggle.error && <ErrorBox error={toggle.error} />}
      <Loaded
        state={observed}
        label="Reading the tags of the line items…"
        empty={{
          title: 'No tags on these line items',
          body:
            'Tags come with the imported files (FOCUS Tags, or the tags of a GPD file). ' +
            'Import files whose resources are tagged, or choose other periods.',
          when: (data) => data.items.length === 0 && (settings?.tagKeys.length ?? 0) === 0,
        }}
      >
        {(data) => (
          <>
            <p class="small" data-testid="tag-keys-range">
              {bucketLabel(data.from, true)}
              {data.to !== data.from && <> – {bucketLabel(data.to, true)}</>}: {money(data.totalCost, currency)} of line items,{' '}
              {number(data.items.length)} {data.items.length === 1 ? 'key' : 'keys'}.
            </p>
            <DataTable
              label="Tag keys"
              testId="tag-keys"
              rows={tagKeyRows(data.items, settings?.tagKeys)}
              columns={columns}
              rowKey={tagKeyId}
              rowProps={(row) => ({ 'data-key': tagKeyId(row), 'data-active': String(row.active) })}
              csv="tag-keys"
            />
          </>
        )}
      </Loaded>
    </Card>
  );
}
