import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import { ApiError } from '../api/problem';
import type { ExtensionValidation, Job } from '../api/types';
import { number } from '../components/format';
import { TextField } from '../components/forms';
import { describeProgress, followJob } from '../components/jobs';
import { DropZone, Progress, putWithProgress } from '../components/upload';

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** A file name the API accepts (letters, digits, dot, dash, underscore), derived from the user's. */
const safeName = (name: string) =>
  name
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 200) || 'upload.zip';

interface Stage {
  step: 'uploading' | 'enriching' | 'done' | 'failed';
  label: string;
  fraction: number;
  job?: Job;
  error?: string;
}

/** `{rowsRead, rowsWritten, rowsRejected}` of an enrichment job, in words. */
function describeResult(result: Job['result']): string {
  const counts = (result ?? {}) as { rowsRead?: number; rowsWritten?: number; rowsRejected?: number };
  if (counts.rowsRead === undefined) return 'Enriched.';
  return (
    `Enriched: ${number(counts.rowsRead)} rows read, ` +
    `${number(counts.rowsWritten ?? 0)} written, ${number(counts.rowsRejected ?? 0)} rejected.`
  );
}

export function GpdUpload({ providers, onUploaded }: { providers: string[]; onUploaded: (provider: string) => void }) {
  const [provider, setProvider] = useState('');
  const [stage, setStage] = useState<Stage>();
  const chosen = provider || providers[0] || '';

  const start = async (file: File) => {
    if (!/\.zip$/i.test(file.name)) {
      setStage({ step: 'failed', label: file.name, fraction: 0, error: 'A GPD file is a .zip archive (see the GPD format guide).' });
      return;
    }
    if (!chosen) {
      setStage({ step: 'failed', label: file.name, fraction: 0, error: 'Choose the provider this file belongs to first.' });
      return;
    }
    const fileName = FILE_NAME.test(file.name) ? file.name : safeName(file.name);
    try {
      setStage({ step: 'uploading', label: `Uploading ${file.name}`, fraction: 0 });
      const submitted = await unwrap(
        costasset.POST('/api/costasset/v1/gpd', { params: { query: { providername: chosen, fileName, sizeBytes: file.size } } }),
      );
      await putWithProgress(submitted.uploadUrl, file, (fraction) =>
        setStage({ step: 'uploading', label: `Uploading ${file.name}`, fraction }),
      );
      onUploaded(chosen);
      setStage({ step: 'enriching', label: 'Enrichment queued', fraction: 0 });
      const started = await unwrap(
        costasset.POST('/api/costasset/v1/gpd/enrich', {
          body: { GPDUploadRefId: [submitted.GPDUploadRefId], provider: [chosen], retry: 'false' },
        }),
      );
      const job = await followJob(started.jobs[0].jobId, (job) =>
        setStage({
          step: 'enriching',
          label: `Enriching ${file.name}: ${job.status}${job.progress.total ? ` (${describeProgress(job.progress)})` : ''}`,
          fraction: job.progress.percent / 100,
          job,
        }),
      );
      // completed_with_errors: the valid rows are written, the rejected ones listed in the upload list
      const ok = job.status === 'succeeded' || job.status === 'completed_with_errors';
      setStage({
        step: ok ? 'done' : 'failed',
        label: ok ? `${file.name} enriched${job.status === 'succeeded' ? '' : ' with errors'}` : `${file.name}: enrichment ${job.status}`,
        fraction: 1,
        job,
        error: ok ? undefined : (job.error ?? 'see the upload list for the reasons'),
      });
      onUploaded(chosen);
    } catch (error) {
      setStage({
        step: 'failed',
        label: file.name,
        fraction: 0,
        error: error instanceof ApiError ? error.message : (error as Error).message,
      });
    }
  };

  const busy = stage?.step === 'uploading' || stage?.step === 'enriching';
  return (
    <div class="grid">
      <div class="form-grid">
        <div class="field">
          <label for="gpd-provider">Provider</label>
          <input
            id="gpd-provider"
            list="gpd-providers"
            value={chosen}
            onInput={(event) => setProvider((event.target as HTMLInputElement).value.trim().toLowerCase())}
            placeholder="aws"
          />
          <datalist id="gpd-providers">
            {providers.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </div>
      </div>
      <DropZone
        id="gpd"
        accept=".zip,application/zip"
        label="Drop a GPD .zip here, or choose a file"
        hint="Uploaded straight to the object store, then enriched into line items."
        disabled={busy}
        onFiles={([file]) => start(file)}
      />
      {stage && (
        <div data-testid="gpd-stage" data-step={stage.step}>
          <Progress
            label={stage.label}
            fraction={stage.fraction}
            tone={stage.step === 'failed' ? 'bad' : stage.step === 'done' ? 'ok' : 'busy'}
          />
          {stage.error && (
            <p class="field-error" role="alert">
              {stage.error}
            </p>
          )}
          {stage.step === 'done' && stage.job && (
            <p class="success" role="status">
              {describeResult(stage.job.result)} <a href="/explorer">See it in the cost explorer</a>.
            </p>
          )}
        </div>
      )}
    </div>
  );
}

export function Extensions() {
  const [code, setCode] = useState('');
  const [stage, setStage] = useState<{ label: string; fraction: number; validation?: ExtensionValidation; error?: string }>();
  const start = async (file: File) => {
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(code))
      return setStage({ label: file.name, fraction: 0, error: 'The provider code is lowercase letters, digits, - and _ (e.g. acme).' });
    if (!/\.zip$/i.test(file.name))
      return setStage({ label: file.name, fraction: 0, error: 'An extension is a .zip holding extension.json.' });
    const Filename = safeName(file.name);
    try {
      const presigned = await unwrap(
        costasset.POST('/api/costasset/extensions/ObjectStoreExtensionRepo', { params: { query: { ProviderCode: code, Filename } } }),
      );
      await putWithProgress(presigned.preSignedUrl, file, (fraction) => setStage({ label: `Uploading ${file.name}`, fraction }));
      setStage({ label: 'Validating', fraction: 1 });
      const validation = await unwrap(
        costasset.POST('/api/costasset/extensions/ObjectStoreExtensionRepo/validate', {
          params: { query: { ProviderCode: code, Filename } },
        }),
      );
      setStage({ label: validation.valid ? `${file.name} is valid` : `${file.name} has problems`, fraction: 1, validation });
    } catch (error) {
      setStage({ label: file.name, fraction: 0, error: (error as Error).message });
    }
  };
  return (
    <div class="grid">
      <div class="form-grid">
        <TextField
          id="extension-code"
          label="Provider code"
          value={code}
          onValue={(value) => setCode(value.trim())}
          placeholder="acme"
          hint="The extension transforms this provider's raw data into GPD."
        />
      </div>
      <DropZone
        id="extension"
        accept=".zip"
        label="Drop an extension .zip here"
        hint="It is validated (every JSONata mapping compiled, required columns checked) before any flow may use it."
        onFiles={([file]) => start(file)}
      />
      {stage && (
        <div data-testid="extension-stage">
          <Progress
            label={stage.label}
            fraction={stage.fraction}
            tone={stage.error || stage.validation?.valid === false ? 'bad' : stage.validation?.valid ? 'ok' : 'busy'}
          />
          {stage.error && (
            <p class="field-error" role="alert">
              {stage.error}
            </p>
          )}
          {stage.validation && !stage.validation.valid && (
            <ul class="rejections">
              {stage.validation.errors.map((problem, index) => (
                <li key={index}>
                  {problem.path && <code>{problem.path}</code>} {problem.message}
                </li>
              ))}
            </ul>
          )}
          {stage.validation?.valid && <p class="success">Valid: flows of {code} may use it.</p>}
        </div>
      )}
    </div>
  );
}
