import { useEffect, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ApiError } from '../api/problem';
import type { Upload } from '../api/types';
import { canManageCostData, useMe } from '../auth/me';
import { type Column, DataTable } from '../components/data-table';
import { ConfirmButton } from '../components/forms';
import { Loaded } from '../components/loaded';
import { StatusBadge } from '../components/states';
import { useAction, useApi } from '../components/use-api';
import { FocusReport, IMPORTED } from './focus-report';

const PAGE_SIZE = 20;

/** Import (again) and remove, for a Cost Data Manager; their problems show under the row. */
function FocusUploadActions({
  upload,
  onChanged,
  report,
}: {
  upload: Upload;
  onChanged: () => void;
  report: (problem: ApiError | undefined) => void;
}) {
  const manages = canManageCostData(useMe());
  const again = useAction(() =>
    unwrap(
      costasset.POST('/api/costasset/v1/focus/uploads/{uploadId}/import', {
        params: { path: { uploadId: upload.GPDUploadRefId } },
        body: { again: IMPORTED.has(upload.status) },
      }),
    ),
  );
  const cleanup = useAction(() =>
    unwrap(costasset.DELETE('/api/costasset/v1/focus/uploads/{uploadId}', { params: { path: { uploadId: upload.GPDUploadRefId } } })),
  );
  const problem = again.error ?? cleanup.error;
  useEffect(() => report(problem), [problem]);
  if (!manages || upload.status === 'importing' || upload.status === 'cleaned') return null;
  return (
    <>
      <button type="button" class="button ghost small" disabled={again.busy} onClick={async () => (await again.run(), onChanged())}>
        {IMPORTED.has(upload.status) ? 'Import again' : 'Import'}
      </button>
      <ConfirmButton
        label="Remove"
        confirmLabel="Remove its files and rows"
        busy={cleanup.busy}
        onConfirm={async () => (await cleanup.run(), onChanged())}
      />
    </>
  );
}

function columnsOf(onChanged: () => void): Column<Upload>[] {
  return [
    {
      key: 'upload',
      header: 'Upload',
      value: (upload) => upload.providerName ?? upload.fileName,
      cell: (upload, row) => (
        <>
          <button type="button" class="row-link" aria-expanded={row.expanded} onClick={row.toggle}>
            {upload.providerName ?? upload.fileName} {row.expanded ? '▾' : '▸'}
          </button>
          <div class="muted small">
            {upload.parts?.length ?? 1} file{(upload.parts?.length ?? 1) === 1 ? '' : 's'} ·{' '}
            <span class="mono">{upload.GPDUploadRefId.slice(0, 8)}</span>
          </div>
        </>
      ),
    },
    { key: 'status', header: 'Status', value: (upload) => upload.status, cell: (upload) => <StatusBadge status={upload.status} /> },
    { key: 'read', header: 'Rows read', value: (upload) => upload.rowsRead, format: 'number' },
    { key: 'written', header: 'Written', value: (upload) => upload.rowsWritten, format: 'number' },
    { key: 'rejected', header: 'Rejected', value: (upload) => upload.rowsRejected, format: 'number' },
    { key: 'updated', header: 'Updated', value: (upload) => upload.updatedAt, format: 'date' },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (upload, row) => <FocusUploadActions upload={upload} onChanged={onChanged} report={row.report} />,
    },
  ];
}

/** The tenant's FOCUS uploads, newest first, a page at a time (the API's cursor). */
export function FocusUploads({ refresh }: { refresh: number }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useApi(
    () =>
      unwrap(costasset.GET('/api/costasset/v1/focus/uploads', { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })),
    [cursor, refresh],
  );
  const active = page.data?.items.some((upload) => upload.status === 'importing');
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(page.reload, 2000);
    return () => clearInterval(timer);
  }, [active]);
  const first = cursors.length === 1;
  return (
    <Loaded
      state={page}
      empty={{
        title: 'No FOCUS uploads yet',
        body: 'Drop the files of a FOCUS export in the FOCUS export tab above.',
        when: (data) => data.items.length === 0 && first,
      }}
    >
      {(data) => (
        <div class="grid">
          <DataTable
            label="FOCUS uploads"
            testId="focus-upload-list"
            rows={data.items}
            columns={columnsOf(page.reload)}
            rowKey={(upload) => upload.GPDUploadRefId}
            rowProps={(upload) => ({ 'data-testid': `focus-upload-${upload.GPDUploadRefId}`, 'data-status': upload.status })}
            detail={(upload) => <FocusReport upload={upload} />}
            csv="focus-uploads"
          />
          {(!first || data.nextCursor) && (
            <nav class="inline" aria-label="FOCUS upload pages">
              <button type="button" class="button ghost small" disabled={first} onClick={() => setCursors((list) => list.slice(0, -1))}>
                Newer
              </button>
              <span class="muted small">Page {cursors.length}</span>
              <button
                type="button"
                class="button ghost small"
                disabled={!data.nextCursor}
                onClick={() => setCursors((list) => [...list, data.nextCursor!])}
              >
                Older
              </button>
            </nav>
          )}
        </div>
      )}
    </Loaded>
  );
}
