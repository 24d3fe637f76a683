import { useEffect, useRef, useState } from 'preact/hooks';
import { canManageCostData, useMe } from '../auth/me';
import { costasset, unwrap } from '../api/client';
import { ApiError } from '../api/problem';
import type { FocusUploadRequest, Job, Upload } from '../api/types';
import { FocusExportButtons } from '../components/focus-export';
import { dateTime, number } from '../components/format';
import { ConfirmButton, SelectField, TextField } from '../components/forms';
import { RejectedRows } from '../components/rejections';
import { bytes, describeProgress, followJob } from '../components/jobs';
import { Empty, ErrorBox, Loading, StatusBadge } from '../components/states';
import { DropZone, Progress, putWithProgress } from '../components/upload';
import { useAction, useApi } from '../components/use-api';

const PAGE_SIZE = 20;
/** Parts PUT at the same time: enough to keep the line busy, few enough for a browser's connection limit. */
const PARALLEL_PUTS = 3;
type FocusVersion = NonNullable<FocusUploadRequest['focusVersion']>;
const VERSIONS = [
  ['', 'Detect from the files'],
  ['1.0', 'FOCUS 1.0'],
  ['1.1', 'FOCUS 1.1'],
  ['1.2', 'FOCUS 1.2'],
  ['1.3', 'FOCUS 1.3'],
] as const;

/** Statuses of an upload an import has run on: importing it once more replaces its rows (`again`). */
const IMPORTED = new Set<Upload['status']>(['enriched', 'enriched_with_errors', 'failed', 'superseded']);

const asApiError = (error: unknown) => (error instanceof ApiError ? error : new ApiError(0, 'CLIENT_ERROR', (error as Error).message));

interface PartState {
  name: string;
  size: number;
  fraction: number;
  failed?: string;
}

interface ImportRun {
  step: 'uploading' | 'importing' | 'done' | 'failed';
  parts: PartState[];
  uploadId?: string;
  job?: Job;
  upload?: Upload;
  error?: ApiError;
}

/** Runs `work` on every item, at most `limit` at a time; the first failure rejects (the others finish their current item). */
async function eachLimited<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** What an import found: counts, the files and their FOCUS versions, the conformance report, rejected rows, replacements. */
export function FocusReport({ upload }: { upload: Upload }) {
  const versions = [...new Set((upload.parts ?? []).map((part) => part.focusVersion).filter(Boolean))];
  const rules = upload.conformance?.rules ?? [];
  const imported = IMPORTED.has(upload.status);
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
        <div class="table-scroll" tabIndex={0} aria-label="Files of the upload">
          <table class="table dense" data-testid="focus-parts">
            <caption class="muted small" style={{ textAlign: 'left' }}>
              Files
            </caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Format</th>
                <th scope="col">Size</th>
                <th scope="col">FOCUS version</th>
                <th scope="col" class="num">Read</th>
                <th scope="col" class="num">Written</th>
                <th scope="col" class="num">Rejected</th>
              </tr>
            </thead>
            <tbody>
              {upload.parts.map((part) => (
                <tr key={part.name}>
                  <th scope="row">{part.name}</th>
                  <td>{part.format}</td>
                  <td>{part.sizeBytes === undefined ? '—' : bytes(part.sizeBytes)}</td>
                  <td>{part.focusVersion ? `${part.focusVersion}${part.versionSource ? ` (${part.versionSource})` : ''}` : '—'}</td>
                  <td class="num">{number(part.rowsRead)}</td>
                  <td class="num">{number(part.rowsWritten)}</td>
                  <td class="num">{number(part.rowsRejected)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {imported &&
        (rules.length === 0 ? (
          <p class="success" data-testid="conformance-clean">
            Conformance: no FOCUS rule failed.
          </p>
        ) : (
          <div class="table-scroll" tabIndex={0} aria-label="Conformance report">
            <table class="table dense" data-testid="conformance-rules">
              <caption class="muted small" style={{ textAlign: 'left' }}>
                Conformance report: every rule that failed (errors reject the row, warnings do not)
              </caption>
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Severity</th>
                  <th scope="col" class="num">Count</th>
                  <th scope="col">First examples</th>
                </tr>
              </thead>
              <tbody>
                {rules.map((rule) => (
                  <tr key={rule.rule} data-rule={rule.rule}>
                    <th scope="row" class="mono">
                      {rule.rule}
                    </th>
                    <td>
                      <span class={`badge ${rule.severity === 'error' ? 'bad' : 'warn'}`}>{rule.severity}</span>
                    </td>
                    <td class="num">{number(rule.count)}</td>
                    <td>
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
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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

      {upload.rowsWritten > 0 && ['enriched', 'enriched_with_errors'].includes(upload.status) && <FocusExportButtons query={{ uploadRefId: upload.GPDUploadRefId }} label="Download its rows as" />}
    </div>
  );
}

/** Choose the files of one export, PUT each to its pre-signed URL, start the import and follow its job. */
export function FocusImport({ onChanged }: { onChanged: () => void }) {
  const [files, setFiles] = useState<File[]>([]);
  const [label, setLabel] = useState('');
  const [version, setVersion] = useState<FocusVersion | ''>('');
  const [run, setRun] = useState<ImportRun>();
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);
  const update = (changes: Partial<ImportRun>) => alive.current && setRun((previous) => ({ ...(previous ?? { step: 'uploading', parts: [] }), ...changes }));
  const setPart = (index: number, changes: Partial<PartState>) =>
    alive.current && setRun((previous) => previous && { ...previous, parts: previous.parts.map((part, at) => (at === index ? { ...part, ...changes } : part)) });

  const add = (chosen: File[]) => {
    setRun(undefined);
    setFiles((list) => [...list.filter((file) => !chosen.some((next) => next.name === file.name)), ...chosen]);
  };

  const start = async () => {
    const parts = files.map((file) => ({ name: file.name, size: file.size, fraction: 0 }));
    setRun({ step: 'uploading', parts });
    try {
      const created = await unwrap(
        costasset.POST('/api/costasset/v1/focus/uploads', { body: { files: files.map((file) => ({ name: file.name, sizeBytes: file.size })), ...(label.trim() ? { label: label.trim() } : {}), ...(version ? { focusVersion: version } : {}) } }),
      );
      update({ uploadId: created.uploadId });
      onChanged();
      const urls = new Map(created.files.map((part) => [part.name, part.uploadUrl]));
      await eachLimited(files, PARALLEL_PUTS, async (file, index) => {
        try {
          await putWithProgress(urls.get(file.name)!, file, (fraction) => setPart(index, { fraction }));
          setPart(index, { fraction: 1 });
        } catch (error) {
          setPart(index, { failed: (error as Error).message });
          throw error;
        }
      });
      const started = await unwrap(costasset.POST('/api/costasset/v1/focus/uploads/{uploadId}/import', { params: { path: { uploadId: created.uploadId } }, body: {} }));
      update({ step: 'importing' });
      onChanged();
      const job = await followJob(started.jobId, (job) => update({ job }), () => !alive.current);
      const upload = await unwrap(costasset.GET('/api/costasset/v1/focus/uploads/{uploadId}', { params: { path: { uploadId: created.uploadId } } }));
      const failed = job.status === 'failed' || job.status === 'terminated';
      update({ step: failed ? 'failed' : 'done', job, upload, error: failed ? new ApiError(0, `JOB_${job.status.toUpperCase()}`, job.error ?? `The import ${job.status}.`) : undefined });
      setFiles([]);
      onChanged();
    } catch (error) {
      update({ step: 'failed', error: asApiError(error) });
      onChanged();
    }
  };

  const busy = run?.step === 'uploading' || run?.step === 'importing';
  const job = run?.job;
  return (
    <div class="grid">
      <div class="form-grid">
        <TextField id="focus-label" label="Label (optional)" value={label} onValue={setLabel} placeholder="AWS FOCUS 2024-10" hint="How the upload is listed; the file names otherwise." />
        <SelectField id="focus-version" label="FOCUS version" value={version} onValue={(value) => setVersion(value as FocusVersion | '')} options={VERSIONS} />
      </div>
      <DropZone
        id="focus"
        accept=".csv,.gz,.parquet,text/csv,application/gzip"
        multiple
        label="Drop the files of a FOCUS export here, or choose them"
        hint="CSV, CSV.gz or Parquet, FOCUS 1.0–1.3: every part of one export goes into one upload. No manifest or extension to write."
        disabled={busy}
        onFiles={add}
      />
      {files.length > 0 && !busy && (
        <div>
          <ul class="list-plain" data-testid="focus-files" aria-label="Files to upload">
            {files.map((file) => (
              <li key={file.name} class="inline">
                <span>{file.name}</span>
                <span class="muted small">{bytes(file.size)}</span>
                <button type="button" class="button ghost small" aria-label={`Remove ${file.name}`} onClick={() => setFiles((list) => list.filter((entry) => entry !== file))}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <div class="form-actions">
            <button type="button" class="button primary" onClick={start}>
              Upload {files.length === 1 ? 'the file' : `${files.length} files`} and import
            </button>
          </div>
        </div>
      )}
      {run && (
        <div class="grid" data-testid="focus-stage" data-step={run.step} data-job-status={job?.status}>
          {run.parts.map((part) => (
            <Progress key={part.name} label={part.failed ? `${part.name}: ${part.failed}` : `${part.name} (${bytes(part.size)})`} fraction={part.fraction} tone={part.failed ? 'bad' : part.fraction >= 1 ? 'ok' : 'busy'} />
          ))}
          {(run.step === 'importing' || job) && (
            <Progress
              label={`Import ${job ? job.status.replace(/_/g, ' ') : 'queued'}${job && describeProgress(job.progress) ? `: ${describeProgress(job.progress)}` : ''}`}
              fraction={(job?.progress.percent ?? 0) / 100}
              tone={job?.status === 'failed' || job?.status === 'terminated' ? 'bad' : job?.status === 'succeeded' || job?.status === 'completed_with_errors' ? 'ok' : 'busy'}
            />
          )}
          {run.error && <ErrorBox error={run.error} />}
          {run.step === 'done' && (
            <p class="success" role="status">
              {job?.status === 'completed_with_errors' ? 'Imported with errors: the rejected rows are listed below.' : 'Imported.'} <a href="/explorer">See it in the cost explorer</a>.
            </p>
          )}
          {run.upload && <FocusReport upload={run.upload} />}
        </div>
      )}
    </div>
  );
}

function FocusUploadRow({ upload, onChanged }: { upload: Upload; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const manages = canManageCostData(useMe());
  const again = useAction(() => unwrap(costasset.POST('/api/costasset/v1/focus/uploads/{uploadId}/import', { params: { path: { uploadId: upload.GPDUploadRefId } }, body: { again: IMPORTED.has(upload.status) } })));
  const cleanup = useAction(() => unwrap(costasset.DELETE('/api/costasset/v1/focus/uploads/{uploadId}', { params: { path: { uploadId: upload.GPDUploadRefId } } })));
  const label = upload.providerName ?? upload.fileName;
  const error = again.error ?? cleanup.error;
  return (
    <>
      <tr data-testid={`focus-upload-${upload.GPDUploadRefId}`} data-status={upload.status}>
        <td>
          <button type="button" class="row-link" aria-expanded={open} onClick={() => setOpen(!open)}>
            {label} {open ? '▾' : '▸'}
          </button>
          <div class="muted small">
            {upload.parts?.length ?? 1} file{(upload.parts?.length ?? 1) === 1 ? '' : 's'} · <span class="mono">{upload.GPDUploadRefId.slice(0, 8)}</span>
          </div>
        </td>
        <td>
          <StatusBadge status={upload.status} />
        </td>
        <td class="num">{number(upload.rowsRead)}</td>
        <td class="num">{number(upload.rowsWritten)}</td>
        <td class="num">{number(upload.rowsRejected)}</td>
        <td>{dateTime(upload.updatedAt)}</td>
        <td class="actions">
          {manages && upload.status !== 'enriching' && upload.status !== 'cleaned' && (
            <button type="button" class="button ghost small" disabled={again.busy} onClick={async () => (await again.run(), onChanged())}>
              {IMPORTED.has(upload.status) ? 'Import again' : 'Import'}
            </button>
          )}
          {manages && upload.status !== 'cleaned' && upload.status !== 'enriching' && (
            <ConfirmButton label="Remove" confirmLabel="Remove its files and rows" busy={cleanup.busy} onConfirm={async () => (await cleanup.run(), onChanged())} />
          )}
        </td>
      </tr>
      {error && (
        <tr>
          <td colSpan={7}>
            <ErrorBox error={error} />
          </td>
        </tr>
      )}
      {open && (
        <tr>
          <td colSpan={7}>
            <FocusReport upload={upload} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The tenant's FOCUS uploads, newest first, a page at a time (the API's cursor). */
export function FocusUploads({ refresh }: { refresh: number }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useApi(() => unwrap(costasset.GET('/api/costasset/v1/focus/uploads', { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })), [cursor, refresh]);
  const active = page.data?.items.some((upload) => upload.status === 'enriching');
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(page.reload, 2000);
    return () => clearInterval(timer);
  }, [active]);

  if (page.error) return <ErrorBox error={page.error} onRetry={page.reload} />;
  if (!page.data) return <Loading />;
  if (page.data.items.length === 0 && cursors.length === 1) return <Empty title="No FOCUS uploads yet">Drop the files of a FOCUS export in the FOCUS export tab above.</Empty>;
  return (
    <div class="grid">
      <div class="table-scroll">
        <table class="table" data-testid="focus-upload-list">
          <thead>
            <tr>
              <th scope="col">Upload</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">Rows read</th>
              <th scope="col" class="num">Written</th>
              <th scope="col" class="num">Rejected</th>
              <th scope="col">Updated</th>
              <th scope="col" class="actions">
                <span class="muted">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.items.map((upload) => (
              <FocusUploadRow key={upload.GPDUploadRefId} upload={upload} onChanged={page.reload} />
            ))}
          </tbody>
        </table>
      </div>
      {(cursors.length > 1 || page.data.nextCursor) && (
        <nav class="inline" aria-label="FOCUS upload pages">
          <button type="button" class="button ghost small" disabled={cursors.length === 1} onClick={() => setCursors((list) => list.slice(0, -1))}>
            Newer
          </button>
          <span class="muted small">Page {cursors.length}</span>
          <button type="button" class="button ghost small" disabled={!page.data.nextCursor} onClick={() => setCursors((list) => [...list, page.data!.nextCursor!])}>
            Older
          </button>
        </nav>
      )}
    </div>
  );
}
