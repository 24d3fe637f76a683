import type { Upload } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { FocusExportButtons } from '../components/focus-export';
import { bytes, number } from '../components/format';
import { RejectedRows } from '../components/rejections';
import { StatusBadge } from '../components/states';

/** Statuses of an upload an import has run on: importing it once more replaces its rows (`again`). */
export const IMPORTED = new Set<Upload['status']>(['imported', 'imported_with_errors', 'failed', 'superseded']);

type Part = NonNullable<Upload['parts']>[number];
type Rule = NonNullable<Upload['conformance']>['rules'][number];

const PART_COLUMNS: Column<Part>[] = [
  { key: 'file', header: 'File', value: (part) => part.name, rowHeader: true },
  { key: 'format', header: 'Format', value: (part) => part.format },
  {
    key: 'size',
    header: 'Size',
    value: (part) => part.sizeBytes,
    align: 'start',
    cell: (part) => (part.sizeBytes === undefined ? '—' : bytes(part.sizeBytes)),
  },
  {
    key: 'version',
    header: 'FOCUS version',
    value: (part) => (part.focusVersion ? `${part.focusVersion}${part.versionSource ? ` (${part.versionSource})` : ''}` : undefined),
  },
  { key: 'read', header: 'Read', value: (part) => part.rowsRead, format: 'number' },
  { key: 'written', header: 'Written', value: (part) => part.rowsWritten, format: 'number' },
  { key: 'rejected', header: 'Rejected', value: (part) => part.rowsRejected, format: 'number' },
];

const RULE_COLUMNS: Column<Rule>[] = [
  { key: 'rule', header: 'Rule', value: (rule) => rule.rule, rowHeader: true, class: 'mono' },
  {
    key: 'severity',
    header: 'Severity',
    value: (rule) => rule.severity,
    cell: (rule) => <span class={`badge ${rule.severity === 'error' ? 'bad' : 'warn'}`}>{rule.severity}</span>,
  },
  { key: 'count', header: 'Count', value: (rule) => rule.count, format: 'number' },
  {
    key: 'examples',
    header: 'First examples',
    value: (rule) =>
      rule.examples
        .map(
          (example) => `${example.file}${example.line ? `:${example.line}` : ''}${example.id ? ` (${example.id})` : ''} ${example.message}`,
        )
        .join('\n'),
    sortable: false,
    cell: (rule) => (
      <ul class="rejections">
        {rule.examples.map((example, index) => (
          <li key={index}>
            <code>
              {example.file}
              {example.line ? `:${example.line}` : ''}
              {example.id ? ` (${example.id})` : ''}
            </code>{' '}
            {example.message}
          </li>
        ))}
      </ul>
    ),
  },
];

/** What an import found: counts, the files and their FOCUS versions, the conformance report, rejected rows, replacements. */
export function FocusReport({ upload }: { upload: Upload }) {
  const versions = [...new Set((upload.parts ?? []).map((part) => part.focusVersion).filter(Boolean))];
  const rules = upload.conformance?.rules ?? [];
  const imported = IMPORTED.has(upload.status);
  const name = upload.providerName ?? upload.fileName;
  return (
    <div class="grid focus-report" data-testid="focus-report" data-status={upload.status}>
      <dl class="kv">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={upload.status} />
        </dd>
        <dt>Rows read</dt>
        <dd data-testid="focus-rows-read">{number(upload.rowsRead)}</dd>
        <dt>Rows written</dt>
        <dd data-testid="focus-rows-written">{number(upload.rowsWritten)}</dd>
        <dt>Rows rejected</dt>
        <dd data-testid="focus-rows-rejected">{number(upload.rowsRejected)}</dd>
        <dt>FOCUS versions</dt>
        <dd data-testid="focus-versions">{versions.length ? versions.join(', ') : '—'}</dd>
        <dt>Providers</dt>
        <dd>{upload.providers?.length ? upload.providers.join(', ') : '—'}</dd>
        {upload.supersededBy?.length ? (
          <>
            <dt>Replaced by</dt>
            <dd class="mono small">{upload.supersededBy.join(', ')}</dd>
          </>
        ) : null}
      </dl>

      {upload.parts && upload.parts.length > 0 && (
        <DataTable
          label="Files of the upload"
          caption="Files"
          testId="focus-parts"
          dense
          rows={upload.parts}
          columns={PART_COLUMNS}
          rowKey={(part) => part.name}
        />
      )}

      {imported &&
        (rules.length === 0 ? (
          <p class="success" data-testid="conformance-clean">
            Conformance: no FOCUS rule failed.
          </p>
        ) : (
          <DataTable
            label="Conformance report"
            caption="Conformance report: every rule that failed (errors reject the row, warnings do not)"
            testId="conformance-rules"
            dense
            rows={rules}
            columns={RULE_COLUMNS}
            rowKey={(rule) => rule.rule}
            rowProps={(rule) => ({ 'data-rule': rule.rule })}
            csv={`conformance ${name}`}
          />
        ))}

      {upload.errors.length > 0 && <RejectedRows errors={upload.errors} testId="focus-rejections" />}

      {upload.replaced && upload.replaced.length > 0 && (
        <div data-testid="focus-replaced">
          <div class="muted small">Rows of earlier imports this one replaced (same provider, billing account and billing period):</div>
          <ul class="rejections">
            {upload.replaced.map((entry) => (
              <li key={entry.uploadRefId}>
                <code>{entry.uploadRefId}</code>: {number(entry.rowsRemoved)} rows
              </li>
            ))}
          </ul>
        </div>
      )}

      {upload.rowsWritten > 0 && ['imported', 'imported_with_errors'].includes(upload.status) && (
        <FocusExportButtons query={{ uploadRefId: upload.GPDUploadRefId }} label="Download its rows as" />
      )}
    </div>
  );
}
