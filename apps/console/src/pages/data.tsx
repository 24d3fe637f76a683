import { useEffect, useMemo, useState } from 'preact/hooks';
import { authz, costasset, unwrap } from '../api/client';
import { ApiError } from '../api/problem';
import type { ExtensionValidation, Job, Upload } from '../api/types';
import { canManageCostData, useMe } from '../auth/me';
import { dateTime, number } from '../components/format';
import { ConfirmButton, TextField } from '../components/forms';
import { RejectedRows } from '../components/rejections';
import { Card, Empty, ErrorBox, Loading, PageHeader, StatusBadge } from '../components/states';
import { describeProgress, followJob } from '../components/jobs';
import { DropZone, Progress, putWithProgress } from '../components/upload';
import { FocusImport, FocusUploads } from './data-focus';
import { useAction, useApi } from '../components/use-api';

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** A file name the API accepts (letters, digits, dot, dash, underscore), derived from the user's. */
const safeName = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[^A-Za-z0-9]+/, '').slice(0, 200) || 'upload.zip';

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
  return `Enriched: ${number(counts.rowsRead)} rows read, ${number(counts.rowsWritten ?? 0)} written, ${number(counts.rowsRejected ?? 0)} rejected.`;
}

/** Providers to list uploads for: those with costs, those the core lists, and any the user adds. */
function useProviders(extra: string[]) {
  const known = useApi(async () => {
    const [costs, supported] = await Promise.all([
      unwrap(costasset.GET('/api/costasset/v1/costs', { params: { query: { groupBy: ['providerName'], top: 50 } } })).catch(() => undefined),
      unwrap(authz.GET('/core/configuration/v1/configvalues/{key}', { params: { path: { key: 'SUPPORTED_CD_PROVIDERS' } } })).catch(() => undefined),
    ]);
    const fromCosts = (costs?.series ?? []).map((series) => series.key.providerName).filter((name): name is string => typeof name === 'string');
    const fromConfig = Array.isArray(supported?.configurationvalue) ? supported.configurationvalue : [];
    return [...fromCosts, ...fromConfig];
  }, []);
  return useMemo(() => [...new Set([...(known.data ?? []), ...extra])].sort(), [known.data, extra.join(',')]);
}

function UploadRow({ upload, onChanged }: { upload: Upload; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const manages = canManageCostData(useMe());
  const enrich = useAction(() => unwrap(costasset.POST('/api/costasset/v1/gpd/enrich', { body: { GPDUploadRefId: [upload.GPDUploadRefId], provider: [upload.providerName ?? ''], retry: 'true' } })));
  const cleanup = useAction(() => unwrap(costasset.POST('/api/costasset/v1/gpd/cleanup', { params: { query: { providername: upload.providerName ?? '' } }, body: { GPDUploadRefId: upload.GPDUploadRefId } })));
  return (
    <>
      <tr data-testid={`upload-${upload.GPDUploadRefId}`} data-status={upload.status}>
        <td>
          <strong>{upload.fileName}</strong>
          <div class="muted small mono">{upload.GPDUploadRefId.slice(0, 8)}</div>
        </td>
        <td>{upload.providerName}</td>
        <td>
          <StatusBadge status={upload.status} />
        </td>
        <td class="num">{number(upload.rowsRead)}</td>
        <td class="num">{number(upload.rowsWritten)}</td>
        <td class="num">
          {upload.rowsRejected > 0 || upload.errors.length > 0 ? (
            <button type="button" class="row-link" aria-expanded={open} onClick={() => setOpen(!open)}>
              {number(upload.rowsRejected)} {open ? '▾' : '▸'}
            </button>
          ) : (
            number(upload.rowsRejected)
          )}
        </td>
        <td>{dateTime(upload.updatedAt)}</td>
        <td class="actions">
          {manages && ['failed', 'uploaded', 'enriched', 'enriched_with_errors'].includes(upload.status) && (
            <button type="button" class="button ghost small" disabled={enrich.busy} onClick={async () => (await enrich.run(), onChanged())}>
              {upload.status === 'uploaded' ? 'Enrich' : 'Enrich again'}
            </button>
          )}
          {manages && upload.status !== 'cleaned' && <ConfirmButton label="Remove" confirmLabel="Remove its rows" busy={cleanup.busy} onConfirm={async () => (await cleanup.run(), onChanged())} />}
        </td>
      </tr>
      {(enrich.error || cleanup.error) && (
        <tr>
          <td colSpan={8}>
            <ErrorBox error={(enrich.error ?? cleanup.error)!} />
          </td>
        </tr>
      )}
      {open && (
        <tr>
          <td colSpan={8}>
            <RejectedRows errors={upload.errors} testId="rejections" />
          </td>
        </tr>
      )}
    </>
  );
}

function GpdUpload({ providers, onUploaded }: { providers: string[]; onUploaded: (provider: string) => void }) {
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
      const submitted = await unwrap(costasset.POST('/api/costasset/v1/gpd', { params: { query: { providername: chosen, fileName, sizeBytes: file.size } } }));
      await putWithProgress(submitted.uploadUrl, file, (fraction) => setStage({ step: 'uploading', label: `Uploading ${file.name}`, fraction }));
      onUploaded(chosen);
      setStage({ step: 'enriching', label: 'Enrichment queued', fraction: 0 });
      const started = await unwrap(costasset.POST('/api/costasset/v1/gpd/enrich', { body: { GPDUploadRefId: [submitted.GPDUploadRefId], provider: [chosen], retry: 'false' } }));
      const job = await followJob(started.jobs[0].jobId, (job) =>
        setStage({ step: 'enriching', label: `Enriching ${file.name}: ${job.status}${job.progress.total ? ` (${describeProgress(job.progress)})` : ''}`, fraction: job.progress.percent / 100, job }),
      );
      // completed_with_errors: the valid rows are written, the rejected ones listed in the upload list
      const ok = job.status === 'succeeded' || job.status === 'completed_with_errors';
      setStage({ step: ok ? 'done' : 'failed', label: ok ? `${file.name} enriched${job.status === 'succeeded' ? '' : ' with errors'}` : `${file.name}: enrichment ${job.status}`, fraction: 1, job, error: ok ? undefined : (job.error ?? 'see the upload list for the reasons') });
      onUploaded(chosen);
    } catch (error) {
      setStage({ step: 'failed', label: file.name, fraction: 0, error: error instanceof ApiError ? error.message : (error as Error).message });
    }
  };

  const busy = stage?.step === 'uploading' || stage?.step === 'enriching';
  return (
    <div class="grid">
      <div class="form-grid">
        <div class="field">
          <label for="gpd-provider">Provider</label>
          <input id="gpd-provider" list="gpd-providers" value={chosen} onInput={(event) => setProvider((event.target as HTMLInputElement).value.trim().toLowerCase())} placeholder="aws" />
          <datalist id="gpd-providers">
            {providers.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </div>
      </div>
      <DropZone id="gpd" accept=".zip,application/zip" label="Drop a GPD .zip here, or choose a file" hint="Uploaded straight to the object store, then enriched into line items." disabled={busy} onFiles={([file]) => start(file)} />
      {stage && (
        <div data-testid="gpd-stage" data-step={stage.step}>
          <Progress label={stage.label} fraction={stage.fraction} tone={stage.step === 'failed' ? 'bad' : stage.step === 'done' ? 'ok' : 'busy'} />
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

function Extensions() {
  const [code, setCode] = useState('');
  const [stage, setStage] = useState<{ label: string; fraction: number; validation?: ExtensionValidation; error?: string }>();
  const start = async (file: File) => {
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(code)) return setStage({ label: file.name, fraction: 0, error: 'The provider code is lowercase letters, digits, - and _ (e.g. acme).' });
    if (!/\.zip$/i.test(file.name)) return setStage({ label: file.name, fraction: 0, error: 'An extension is a .zip holding extension.json.' });
    const Filename = safeName(file.name);
    try {
      const presigned = await unwrap(costasset.POST('/api/costasset/extensions/ObjectStoreExtensionRepo', { params: { query: { ProviderCode: code, Filename } } }));
      await putWithProgress(presigned.preSignedUrl, file, (fraction) => setStage({ label: `Uploading ${file.name}`, fraction }));
      setStage({ label: 'Validating', fraction: 1 });
      const validation = await unwrap(costasset.POST('/api/costasset/extensions/ObjectStoreExtensionRepo/validate', { params: { query: { ProviderCode: code, Filename } } }));
      setStage({ label: validation.valid ? `${file.name} is valid` : `${file.name} has problems`, fraction: 1, validation });
    } catch (error) {
      setStage({ label: file.name, fraction: 0, error: (error as Error).message });
    }
  };
  return (
    <div class="grid">
      <div class="form-grid">
        <TextField id="extension-code" label="Provider code" value={code} onValue={(value) => setCode(value.trim())} placeholder="acme" hint="The extension transforms this provider's raw data into GPD." />
      </div>
      <DropZone id="extension" accept=".zip" label="Drop an extension .zip here" hint="It is validated (every JSONata mapping compiled, required columns checked) before any flow may use it." onFiles={([file]) => start(file)} />
      {stage && (
        <div data-testid="extension-stage">
          <Progress label={stage.label} fraction={stage.fraction} tone={stage.error || stage.validation?.valid === false ? 'bad' : stage.validation?.valid ? 'ok' : 'busy'} />
          {stage.error && <p class="field-error" role="alert">{stage.error}</p>}
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

export default function Data() {
  const me = useMe();
  const [tab, setTab] = useState<'gpd' | 'focus' | 'extensions'>('gpd');
  const [added, setAdded] = useState<string[]>([]);
  const [focusChanged, setFocusChanged] = useState(0);
  const providers = useProviders(added);
  const uploads = useApi(async () => {
    const lists = await Promise.all(providers.map((providername) => unwrap(costasset.GET('/api/costasset/v1/gpd', { params: { query: { providername } } }))));
    // FOCUS uploads are listed under every provider they hold rows of: they have a list of their own below
    return lists
      .flat()
      .filter((upload) => upload.format !== 'focus')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }, [providers.join(',')]);
  // while an upload enriches, the list follows it
  const active = uploads.data?.some((upload) => upload.status === 'enriching' || upload.status === 'uploaded');
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(uploads.reload, 2000);
    return () => clearInterval(timer);
  }, [active]);

  const tabs = [
    ['gpd', 'GPD upload'],
    ['focus', 'FOCUS export'],
    ...(me.is_system_admin ? [['extensions', 'Extensions']] : []),
  ] as const;
  return (
    <div class="page">
      <PageHeader title="Data" subtitle="Load providers' billing data, follow its enrichment, and see what was rejected and why." />
      <Card>
        <div class="tabs" role="tablist" aria-label="Kind of data">
          {tabs.map(([id, label]) => (
            <button key={id} type="button" role="tab" id={`tab-${id}`} aria-selected={tab === id} aria-controls={`panel-${id}`} onClick={() => setTab(id as typeof tab)}>
              {label}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} style={{ paddingTop: '14px' }}>
          {!canManageCostData(me) && tab !== 'extensions' && (
            <p class="muted" data-testid="cost-data-role-needed">
              Loading or removing cost data needs the Cost Data Manager role. You can follow the uploads of the accounts you see below.
            </p>
          )}
          {canManageCostData(me) && tab === 'gpd' && <GpdUpload providers={providers} onUploaded={(provider) => (setAdded((list) => (list.includes(provider) ? list : [...list, provider])), uploads.reload())} />}
          {canManageCostData(me) && tab === 'focus' && <FocusImport onChanged={() => setFocusChanged((count) => count + 1)} />}
          {tab === 'extensions' && <Extensions />}
        </div>
      </Card>
      <Card title="GPD uploads" actions={<button type="button" class="button ghost small" onClick={uploads.reload}>Refresh</button>}>
        {uploads.error ? (
          <ErrorBox error={uploads.error} onRetry={uploads.reload} />
        ) : !uploads.data ? (
          <Loading />
        ) : uploads.data.length === 0 ? (
          <Empty title="No uploads yet">Drop a GPD file above to load a provider's costs.</Empty>
        ) : (
          <div class="table-scroll">
            <table class="table" data-testid="upload-list">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">Rows read</th>
                  <th scope="col" class="num">Written</th>
                  <th scope="col" class="num">Rejected</th>
                  <th scope="col">Updated</th>
                  <th scope="col" class="actions"><span class="muted">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {uploads.data.map((upload) => (
                  <UploadRow key={upload.GPDUploadRefId} upload={upload} onChanged={uploads.reload} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      <Card title="FOCUS uploads" actions={<button type="button" class="button ghost small" onClick={() => setFocusChanged((count) => count + 1)}>Refresh</button>}>
        <FocusUploads refresh={focusChanged} />
      </Card>
    </div>
  );
}
