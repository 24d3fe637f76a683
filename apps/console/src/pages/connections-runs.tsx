import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import { type Column, DataTable } from '../components/data-table';
import { bytes, dateTime, number } from '../components/format';
import { Loaded } from '../components/loaded';
import { Card, ErrorBox, StatusBadge } from '../components/states';
import { Progress } from '../components/upload';
import { useAction, useApi } from '../components/use-api';
import {
  type Connection,
  type ConnectionRun,
  type ConnectionRunSummary,
  filesOf,
  importActive,
  OUTCOME_TONES,
  OUTCOMES,
  outcomeCounts,
  type OutcomeFilter,
  progressOf,
  type RunFile,
  type RunImport,
  runActive,
  runCounts,
} from './connections-logic';

/** How often a run (or the history of a connection with a run moving) is asked again. */
export const POLL_MS = 2000;
const PAGE_SIZE = 20;

/** Asks `state` again every POLL_MS while `moving` (after each answer, so requests never pile up). */
function usePoll(moving: boolean, state: { loading: boolean; data?: unknown; reload: () => void }) {
  useEffect(() => {
    if (!moving || state.loading) return;
    const timer = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [moving, state.loading, state.data]);
}

/** A connection's syncs, newest first, 20 at a time ("More" asks for the next page with the API's cursor). */
export function RunHistory({
  connection,
  version,
  selected,
  onSelect,
}: {
  connection: Connection;
  version: number;
  selected?: string;
  onSelect: (runId: string) => void;
}) {
  const first = useApi(
    () =>
      unwrap(
        costasset.GET('/api/costasset/v1/connections/{id}/runs', {
          params: { path: { id: connection.id }, query: { limit: PAGE_SIZE } },
        }),
      ),
    [connection.id, version],
  );
  const [older, setOlder] = useState<{ items: ConnectionRunSummary[]; nextCursor: string | null }>();
  useEffect(() => setOlder(undefined), [connection.id]);
  const more = useAction(async (cursor: string) => {
    const page = await unwrap(
      costasset.GET('/api/costasset/v1/connections/{id}/runs', {
        params: { path: { id: connection.id }, query: { limit: PAGE_SIZE, cursor } },
      }),
    );
    setOlder((previous) => ({ items: [...(previous?.items ?? []), ...page.items], nextCursor: page.nextCursor }));
  });
  usePoll(!!first.data?.items.some((run) => runActive(run.status)), first);
  const runs = useMemo(() => {
    const seen = new Set<string>();
    return [...(first.data?.items ?? []), ...(older?.items ?? [])].filter((run) => !seen.has(run.runId) && !!seen.add(run.runId));
  }, [first.data, older]);
  const nextCursor = older ? older.nextCursor : first.data?.nextCursor;
  const columns: Column<ConnectionRunSummary>[] = [
    {
      key: 'started',
      header: 'Started',
      value: (run) => run.startedAt,
      format: 'date',
      cell: (run) => (
        <button type="button" class="row-link" aria-pressed={run.runId === selected} onClick={() => onSelect(run.runId)}>
          {dateTime(run.startedAt)}
        </button>
      ),
    },
    { key: 'status', header: 'Status', value: (run) => run.status, cell: (run) => <StatusBadge status={run.status} /> },
    { key: 'trigger', header: 'Trigger', value: (run) => (run.trigger === 'manual' ? 'asked' : 'schedule') },
    { key: 'found', header: 'Found', value: (run) => run.found, format: 'number' },
    { key: 'imported', header: 'Imported', value: (run) => run.imported, format: 'number' },
    { key: 'skipped', header: 'Skipped', value: (run) => run.skipped, format: 'number' },
    { key: 'rejected', header: 'Rejected', value: (run) => run.rejected, format: 'number' },
    { key: 'bytes', header: 'Copied', value: (run) => run.bytesImported, cell: (run) => bytes(run.bytesImported), align: 'end' },
    { key: 'finished', header: 'Finished', value: (run) => run.finishedAt, format: 'date' },
  ];
  return (
    <Card
      title={`Syncs of ${connection.name}`}
      actions={
        <button type="button" class="button ghost" onClick={first.reload} disabled={first.loading}>
          {first.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <Loaded
        state={first}
        empty={{
          title: 'No syncs yet',
          body: '"Sync now" imports what the bucket holds; a schedule syncs by itself.',
          when: (page) => !page?.items.length,
        }}
      >
        {() => (
          <div class="grid">
            <DataTable
              label={`Syncs of ${connection.name}`}
              testId="run-list"
              dense
              rows={runs}
              columns={columns}
              rowKey={(run) => run.runId}
              rowProps={(run) => ({
                class: run.runId === selected ? 'selected' : undefined,
                'data-run': run.runId,
                'data-status': run.status,
              })}
            />
            {more.error && <ErrorBox error={more.error} />}
            {nextCursor && (
              <div>
                <button type="button" class="button ghost small" disabled={more.busy} onClick={() => more.run(nextCursor)}>
                  {more.busy ? 'Loading…' : 'More'}
                </button>
              </div>
            )}
          </div>
        )}
      </Loaded>
    </Card>
  );
}

const IMPORT_COLUMNS: Column<RunImport>[] = [
  { key: 'period', header: 'Billing period', value: (entry) => entry.billingPeriod, rowHeader: true },
  {
    key: 'execution',
    header: 'Delivery',
    value: (entry) => entry.execution,
    cell: (entry) => <span class="mono small">{entry.execution}</span>,
  },
  { key: 'files', header: 'Files', value: (entry) => entry.files, format: 'number' },
  { key: 'bytes', header: 'Size', value: (entry) => entry.bytes, cell: (entry) => bytes(entry.bytes), align: 'end' },
  {
    key: 'status',
    header: 'Upload status',
    value: (entry) => entry.uploadStatus,
    cell: (entry) => <StatusBadge status={entry.uploadStatus} />,
  },
  {
    key: 'upload',
    header: 'FOCUS upload',
    value: (entry) => entry.uploadId,
    cell: (entry) => (
      <>
        <span class="mono small" title={entry.uploadId}>
          {entry.uploadId.slice(0, 8)}
        </span>{' '}
        <a href="/data" class="small">
          in FOCUS uploads
        </a>
      </>
    ),
  },
];

const FILE_COLUMNS: Column<RunFile>[] = [
  { key: 'key', header: 'Key', value: (file) => file.key, cell: (file) => <span class="mono small">{file.key}</span> },
  { key: 'size', header: 'Size', value: (file) => file.sizeBytes, cell: (file) => bytes(file.sizeBytes), align: 'end' },
  {
    key: 'outcome',
    header: 'Outcome',
    value: (file) => file.outcome,
    cell: (file) => <span class={`badge ${OUTCOME_TONES[file.outcome]}`}>{file.outcome}</span>,
  },
  { key: 'period', header: 'Billing period', value: (file) => file.billingPeriod },
  { key: 'reason', header: 'Reason', value: (file) => file.reason },
];

/** The files of a run, filtered by outcome. */
function RunFiles({ run }: { run: ConnectionRun }) {
  const [filter, setFilter] = useState<OutcomeFilter>('all');
  const counts = outcomeCounts(run.files);
  const shown = filesOf(run.files, filter);
  return (
    <div class="grid">
      <div class="inline run-file-filter" role="group" aria-label="Files by outcome">
        {(['all', ...OUTCOMES] as const).map((outcome) => (
          <button
            key={outcome}
            type="button"
            class="button ghost small"
            aria-pressed={filter === outcome}
            data-outcome={outcome}
            onClick={() => setFilter(outcome)}
          >
            {outcome === 'all' ? 'All' : outcome[0].toUpperCase() + outcome.slice(1)} ({number(counts[outcome])})
          </button>
        ))}
      </div>
      <DataTable
        label="Files of the sync"
        testId="run-files"
        dense
        rows={shown}
        columns={FILE_COLUMNS}
        rowKey={(file) => `${file.key}:${file.etag}`}
        rowProps={(file) => ({ 'data-key': file.key, 'data-outcome': file.outcome })}
        empty={{ title: filter === 'all' ? 'The sync listed no files' : `No ${filter} files` }}
        csv={`sync-${run.runId}-files`}
        maxHeight="420px"
      />
      {run.filesTruncated && <p class="muted small">Only the first 2,000 files are kept; the counts above are of all of them.</p>}
    </div>
  );
}

/**
 * One sync: its progress (files and bytes, a bar while it runs), what it found, the uploads it made
 * with their status now, and every file with its outcome. Asked again every 2 s while the sync is
 * queued or running, or one of its uploads is still importing; `onSettled` runs once it stops.
 */
export function RunDetail({ connection, runId, onSettled }: { connection: Connection; runId: string; onSettled: () => void }) {
  const run = useApi(
    () => unwrap(costasset.GET('/api/costasset/v1/connections/{id}/runs/{runId}', { params: { path: { id: connection.id, runId } } })),
    [connection.id, runId],
  );
  const data = run.data?.runId === runId ? run.data : undefined;
  const moving = data ? runActive(data.status) : false;
  usePoll(moving || (data ? importActive(data.imports) : false), run);
  const wasMoving = useRef(false);
  useEffect(() => {
    if (wasMoving.current && data && !moving) onSettled();
    wasMoving.current = moving;
  }, [moving, data?.runId]);
  return (
    <Card title={`Sync of ${connection.name}`} class="run-detail">
      <Loaded state={run} label="Reading the sync…">
        {(current) => {
          const progress = progressOf(current.progress);
          return (
            <div class="grid" data-testid="run-detail" data-run={current.runId} data-status={current.status}>
              <dl class="kv">
                <dt>Status</dt>
                <dd>
                  <StatusBadge status={current.status} />
                </dd>
                <dt>Started</dt>
                <dd>
                  {dateTime(current.startedAt)} ({current.trigger === 'manual' ? 'asked for' : 'by the schedule'})
                </dd>
                <dt>Finished</dt>
                <dd>{current.finishedAt ? dateTime(current.finishedAt) : 'not yet'}</dd>
                <dt>Files</dt>
                <dd data-testid="run-counts">{runCounts(current)}</dd>
                <dt>Copied</dt>
                <dd>{bytes(current.bytesImported)}</dd>
              </dl>
              {current.error && (
                <p class="error-text" data-testid="run-error">
                  {current.error}
                </p>
              )}
              {runActive(current.status) ? (
                <div data-testid="run-progress">
                  <Progress label={`Copying: ${progress.files}`} fraction={progress.fraction} />
                  <p class="muted small">{progress.bytes}</p>
                </div>
              ) : (
                <p class="muted small" data-testid="run-progress">
                  Copied {progress.files}, {progress.bytes}.
                </p>
              )}
              <h3 class="form-section">Uploads made</h3>
              {current.imports.length ? (
                <DataTable
                  label="Uploads the sync made"
                  testId="run-imports"
                  dense
                  rows={current.imports}
                  columns={IMPORT_COLUMNS}
                  rowKey={(entry) => entry.uploadId}
                  rowProps={(entry) => ({ 'data-upload': entry.uploadId, 'data-status': entry.uploadStatus })}
                />
              ) : (
                <p class="muted" data-testid="run-imports-none">
                  {runActive(current.status) ? 'None yet.' : 'None: nothing new or changed to import.'}
                </p>
              )}
              <h3 class="form-section">Files</h3>
              <RunFiles run={current} />
            </div>
          );
        }}
      </Loaded>
    </Card>
  );
}
