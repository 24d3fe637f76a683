import { useEffect, useRef, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import { ApiError } from '../api/problem';
import type { FocusUploadRequest, Job, Upload } from '../api/types';
import { bytes } from '../components/format';
import { SelectField, TextField } from '../components/forms';
import { describeProgress, followJob } from '../components/jobs';
import { ErrorBox } from '../components/states';
import { DropZone, Progress, putWithProgress } from '../components/upload';
import { FocusReport } from './focus-report';

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

/** Choose the files of one export, PUT each to its pre-signed URL, start the import and follow its job. */
export function FocusImport({ onChanged }: { onChanged: () => void }) {
  const [files, setFiles] = useState<File[]>([]);
  const [label, setLabel] = useState('');
  const [version, setVersion] = useState<FocusVersion | ''>('');
  const [run, setRun] = useState<ImportRun>();
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);
  const update = (changes: Partial<ImportRun>) =>
    alive.current && setRun((previous) => ({ ...(previous ?? { step: 'uploading', parts: [] }), ...changes }));
  const setPart = (index: number, changes: Partial<PartState>) =>
    alive.current &&
    setRun(
      (previous) => previous && { ...previous, parts: previous.parts.map((part, at) => (at === index ? { ...part, ...changes } : part)) },
    );

  const add = (chosen: File[]) => {
    setRun(undefined);
    setFiles((list) => [...list.filter((file) => !chosen.some((next) => next.name === file.name)), ...chosen]);
  };

  const start = async () => {
    const parts = files.map((file) => ({ name: file.name, size: file.size, fraction: 0 }));
    setRun({ step: 'uploading', parts });
    try {
      const created = await unwrap(
        costasset.POST('/api/costasset/v1/focus/uploads', {
          body: {
            files: files.map((file) => ({ name: file.name, sizeBytes: file.size })),
            ...(label.trim() ? { label: label.trim() } : {}),
            ...(version ? { focusVersion: version } : {}),
          },
        }),
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
      const started = await unwrap(
        costasset.POST('/api/costasset/v1/focus/uploads/{uploadId}/import', { params: { path: { uploadId: created.uploadId } }, body: {} }),
      );
      update({ step: 'importing' });
      onChanged();
      const job = await followJob(
        started.jobId,
        (job) => update({ job }),
        () => !alive.current,
      );
      const upload = await unwrap(
        costasset.GET('/api/costasset/v1/focus/uploads/{uploadId}', { params: { path: { uploadId: created.uploadId } } }),
      );
      const failed = job.status === 'failed' || job.status === 'terminated';
      update({
        step: failed ? 'failed' : 'done',
        job,
        upload,
        error: failed ? new ApiError(0, `JOB_${job.status.toUpperCase()}`, job.error ?? `The import ${job.status}.`) : undefined,
      });
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
        <TextField
          id="focus-label"
          label="Label (optional)"
          value={label}
          onValue={setLabel}
          placeholder="AWS FOCUS 2024-10"
          hint="How the upload is listed; the file names otherwise."
        />
        <SelectField
          id="focus-version"
          label="FOCUS version"
          value={version}
          onValue={(value) => setVersion(value as FocusVersion | '')}
          options={VERSIONS}
        />
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
                <button
                  type="button"
                  class="button ghost small"
                  aria-label={`Remove ${file.name}`}
                  onClick={() => setFiles((list) => list.filter((entry) => entry !== file))}
                >
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
            <Progress
              key={part.name}
              label={part.failed ? `${part.name}: ${part.failed}` : `${part.name} (${bytes(part.size)})`}
              fraction={part.fraction}
              tone={part.failed ? 'bad' : part.fraction >= 1 ? 'ok' : 'busy'}
            />
          ))}
          {(run.step === 'importing' || job) && (
            <Progress
              label={
                `Import ${job ? job.status.replace(/_/g, ' ') : 'queued'}` +
                `${job && describeProgress(job.progress) ? `: ${describeProgress(job.progress)}` : ''}`
              }
              fraction={(job?.progress.percent ?? 0) / 100}
              tone={
                job?.status === 'failed' || job?.status === 'terminated'
                  ? 'bad'
                  : job?.status === 'succeeded' || job?.status === 'completed_with_errors'
                    ? 'ok'
                    : 'busy'
              }
            />
          )}
          {run.error && <ErrorBox error={run.error} />}
          {run.step === 'done' && (
            <p class="success" role="status">
              {job?.status === 'completed_with_errors' ? 'Imported with errors: the rejected rows are listed below.' : 'Imported.'}{' '}
              <a href="/explorer">See it in the cost explorer</a>.
            </p>
          )}
          {run.upload && <FocusReport upload={run.upload} />}
        </div>
      )}
    </div>
  );
}
