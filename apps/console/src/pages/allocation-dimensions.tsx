import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { Dimension, DimensionVersion } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { ConfirmButton } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Card, ErrorBox } from '../components/states';
import { hrefOf } from '../components/url-state';
import { useAction, useApi } from '../components/use-api';
import { draftOf } from './allocation-logic';
import { DimensionEditor } from './dimension-editor';

const CHANGE_TONES: Record<DimensionVersion['change'], string> = { created: 'ok', updated: 'busy', deleted: 'bad' };

function RuleList({ rules, defaultValue }: { rules: readonly { expr: string; value: string }[]; defaultValue: string }) {
  return (
    <ol class="rule-summary">
      {rules.map((rule, index) => (
        <li key={index}>
          <code>{rule.expr}</code> → <strong>{rule.value}</strong>
        </li>
      ))}
      <li class="muted">
        otherwise → <strong>{defaultValue}</strong>
      </li>
    </ol>
  );
}

const HISTORY_COLUMNS: Column<DimensionVersion>[] = [
  { key: 'version', header: 'Version', value: (version) => version.version, format: 'number', rowHeader: true, align: 'start' },
  {
    key: 'change',
    header: 'Change',
    value: (version) => version.change,
    cell: (version) => <span class={`badge ${CHANGE_TONES[version.change]}`}>{version.change}</span>,
  },
  { key: 'changedBy', header: 'By', value: (version) => version.changedBy },
  { key: 'changedAt', header: 'When', value: (version) => version.changedAt, format: 'date' },
  {
    key: 'rules',
    header: 'Rules',
    value: (version) => version.rules.map((rule) => `${rule.expr} → ${rule.value}`).join('; '),
    sortable: false,
    cell: (version) => <RuleList rules={version.rules} defaultValue={version.defaultValue} />,
  },
];

/** A dimension's saved versions, newest first: who changed what and when. */
function History({ name, version, onClose }: { name: string; version?: number; onClose: () => void }) {
  const versions = useApi(
    () => unwrap(costasset.GET('/api/costasset/v1/allocation/dimensions/{name}/versions', { params: { path: { name } } })),
    [name, version],
  );
  return (
    <Card
      title={`History of ${name}`}
      actions={
        <button type="button" class="button ghost" onClick={onClose}>
          Close
        </button>
      }
    >
      <Loaded state={versions} label="Reading the versions…" empty={{ title: 'No saved version' }}>
        {(page) => (
          <DataTable
            label={`Versions of ${name}`}
            testId="dimension-history"
            dense
            rows={page.items}
            columns={HISTORY_COLUMNS}
            rowKey={(entry) => String(entry.version)}
            rowProps={(entry) => ({ 'data-version': String(entry.version), 'data-change': entry.change })}
          />
        )}
      </Loaded>
    </Card>
  );
}

/** The tenant's virtual dimensions: the list, the editor (new or existing), and a dimension's history. */
export function Dimensions({ onChanged, currency }: { onChanged: () => void; currency: string }) {
  const list = useApi(() => unwrap(costasset.GET('/api/costasset/v1/allocation/dimensions')), []);
  const [editing, setEditing] = useState<{ key: number; dimension?: Dimension }>();
  const [history, setHistory] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const remove = useAction(async (name: string) => {
    await unwrap(costasset.DELETE('/api/costasset/v1/allocation/dimensions/{name}', { params: { path: { name } } }));
    if (editing?.dimension?.name === name) setEditing(undefined);
    setSaved(`Deleted ${name}; its history stays. The rollups are being recomputed.`);
    list.reload();
    onChanged();
  });
  const open = (dimension?: Dimension) => {
    setSaved(undefined);
    setEditing({ key: Date.now(), dimension });
  };
  const columns: Column<Dimension>[] = [
    {
      key: 'name',
      header: 'Name',
      value: (dimension) => dimension.name,
      rowHeader: true,
      cell: (dimension) => (
        <button type="button" class="row-link" onClick={() => open(dimension)} aria-label={`Edit ${dimension.name}`}>
          {dimension.name}
        </button>
      ),
    },
    { key: 'description', header: 'Description', value: (dimension) => dimension.description },
    { key: 'rules', header: 'Rules', value: (dimension) => dimension.rules.length, format: 'number' },
    { key: 'default', header: 'Default value', value: (dimension) => dimension.defaultValue },
    { key: 'version', header: 'Version', value: (dimension) => dimension.version, format: 'number' },
    { key: 'updatedAt', header: 'Updated', value: (dimension) => dimension.updatedAt, format: 'date' },
    { key: 'updatedBy', header: 'By', value: (dimension) => dimension.updatedBy },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (dimension) => (
        <>
          <a class="button ghost small" href={hrefOf('/explorer', { groupBy: `dimension:${dimension.name}` })}>
            Explore
          </a>
          <button
            type="button"
            class="button ghost small"
            aria-pressed={history === dimension.name}
            aria-label={`History of ${dimension.name}`}
            onClick={() => setHistory(history === dimension.name ? undefined : dimension.name)}
          >
            History
          </button>
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${dimension.name}`}
            busy={remove.busy}
            onConfirm={() => remove.run(dimension.name)}
          />
        </>
      ),
    },
  ];
  const shownHistory = history && list.data?.items.find((dimension) => dimension.name === history);
  return (
    <>
      {editing && (
        <Card title={editing.dimension ? `Edit ${editing.dimension.name}` : 'New dimension'}>
          <DimensionEditor
            key={editing.key}
            initial={draftOf(editing.dimension)}
            currency={currency}
            onCancel={() => setEditing(undefined)}
            onSaved={(dimension) => {
              setEditing(undefined);
              setSaved(
                `Saved ${dimension.name} (version ${dimension.version}). The rollups are being recomputed: ` +
                  'until they are, the explorer reads the line items.',
              );
              list.reload();
              onChanged();
            }}
          />
        </Card>
      )}
      {saved && (
        <p class="success" role="status" data-testid="dimension-saved">
          {saved}
        </p>
      )}
      {remove.error && <ErrorBox error={remove.error} />}
      <Card
        title="Dimensions"
        actions={
          !editing && (
            <button type="button" class="button primary" onClick={() => open()}>
              New dimension
            </button>
          )
        }
      >
        <p class="muted small">
          A dimension gives every line item a value by ordered rules: the first rule whose expression matches sets it, and what no rule
          matches takes the default. Group the explorer by it, or filter with <code>{"dimension('name') == 'value'"}</code>; a change
          applies to all data, old and new.
        </p>
        <Loaded
          state={list}
          label="Reading the dimensions…"
          empty={{
            title: 'No dimensions yet',
            body: 'Start with "New dimension": for instance an environment whose rules merge the spellings of an env tag.',
          }}
        >
          {(page) => (
            <DataTable
              label="Dimensions"
              testId="dimension-list"
              rows={page.items}
              columns={columns}
              rowKey={(dimension) => dimension.name}
              rowProps={(dimension) => ({ 'data-dimension': dimension.name, class: history === dimension.name ? 'selected' : undefined })}
            />
          )}
        </Loaded>
      </Card>
      {history && (
        <History name={history} version={shownHistory ? shownHistory.version : undefined} onClose={() => setHistory(undefined)} />
      )}
    </>
  );
}
