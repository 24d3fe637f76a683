import { useEffect, useMemo, useState } from 'preact/hooks';
import { authz, costasset, unwrap } from '../api/client';
import type { ApiError } from '../api/problem';
import type { Upload } from '../api/types';
import { canManageCostData, useMe } from '../auth/me';
import { type Column, DataTable } from '../components/data-table';
import { number } from '../components/format';
import { ConfirmButton } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { RejectedRows } from '../components/rejections';
import { Card, StatusBadge } from '../components/states';
import { useAction, useApi } from '../components/use-api';
import { Extensions, GpdUpload } from './data-gpd';
import { FocusImport } from './data-focus';
import { FocusUploads } from './focus-uploads';

/** Providers to list uploads for: those with costs, those the core lists, and any the user adds. */
function useProviders(extra: string[]) {
  const known = useApi(async () => {
    const [costs, supported] = await Promise.all([
      unwrap(costasset.GET('/api/costasset/v1/costs', { params: { query: { groupBy: ['providerName'], top: 50 } } })).catch(
        () => undefined,
      ),
      unwrap(authz.GET('/core/configuration/v1/configvalues/{key}', { params: { path: { key: 'SUPPORTED_CD_PROVIDERS' } } })).catch(
        () => undefined,
      ),
    ]);
    const fromCosts = (costs?.series ?? [])
      .map((series) => series.key.providerName)
      .filter((name): name is string => typeof name === 'string');
    const fromConfig = Array.isArray(supported?.configurationvalue) ? supported.configurationvalue : [];
    return [...fromCosts, ...fromConfig];
  }, []);
  return useMemo(() => [...new Set([...(known.data ?? []), ...extra])].sort(), [known.data, extra.join(',')]);
}

/** Enrich (again) and remove, for a Cost Data Manager; their problems show under the row. */
function UploadActions({
  upload,
  onChanged,
  report,
}: {
  upload: Upload;
  onChanged: () => void;
  report: (problem: ApiError | undefined) => void;
}) {
  const manages = canManageCostData(useMe());
  const enrich = useAction(() =>
    unwrap(
      costasset.POST('/api/costasset/v1/gpd/enrich', {
        body: { GPDUploadRefId: [upload.GPDUploadRefId], provider: [upload.providerName ?? ''], retry: 'true' },
      }),
    ),
  );
  const cleanup = useAction(() =>
    unwrap(
      costasset.POST('/api/costasset/v1/gpd/cleanup', {
        params: { query: { providername: upload.providerName ?? '' } },
        body: { GPDUploadRefId: upload.GPDUploadRefId },
      }),
    ),
  );
  const problem = enrich.error ?? cleanup.error;
  useEffect(() => report(problem), [problem]);
  if (!manages) return null;
  return (
    <>
      {['failed', 'uploaded', 'enriched', 'enriched_with_errors', 'imported', 'imported_with_errors'].includes(upload.status) && (
        <button type="button" class="button ghost small" disabled={enrich.busy} onClick={async () => (await enrich.run(), onChanged())}>
          {upload.status === 'uploaded' ? 'Enrich' : 'Enrich again'}
        </button>
      )}
      {upload.status !== 'cleaned' && (
        <ConfirmButton
          label="Remove"
          confirmLabel="Remove its rows"
          busy={cleanup.busy}
          onConfirm={async () => (await cleanup.run(), onChanged())}
        />
      )}
    </>
  );
}

function uploadColumns(onChanged: () => void): Column<Upload>[] {
  return [
    {
      key: 'file',
      header: 'File',
      value: (upload) => upload.fileName,
      cell: (upload) => (
        <>
          <strong>{upload.fileName}</strong>
          <div class="muted small mono">{upload.GPDUploadRefId.slice(0, 8)}</div>
        </>
      ),
    },
    { key: 'provider', header: 'Provider', value: (upload) => upload.providerName },
    { key: 'status', header: 'Status', value: (upload) => upload.status, cell: (upload) => <StatusBadge status={upload.status} /> },
    { key: 'read', header: 'Rows read', value: (upload) => upload.rowsRead, format: 'number' },
    { key: 'written', header: 'Written', value: (upload) => upload.rowsWritten, format: 'number' },
    {
      key: 'rejected',
      header: 'Rejected',
      value: (upload) => upload.rowsRejected,
      format: 'number',
      cell: (upload, row) =>
        upload.rowsRejected > 0 || upload.errors.length > 0 ? (
          <button type="button" class="row-link" aria-expanded={row.expanded} onClick={row.toggle}>
            {number(upload.rowsRejected)} {row.expanded ? '▾' : '▸'}
          </button>
        ) : (
          number(upload.rowsRejected)
        ),
    },
    { key: 'updated', header: 'Updated', value: (upload) => upload.updatedAt, format: 'date' },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (upload, row) => <UploadActions upload={upload} onChanged={onChanged} report={row.report} />,
    },
  ];
}

const TABS = [
  ['gpd', 'GPD upload'],
  ['focus', 'FOCUS export'],
  ['extensions', 'Extensions'],
] as const;

export default function Data() {
  const me = useMe();
  const [tab, setTab] = useState<(typeof TABS)[number][0]>('gpd');
  const [added, setAdded] = useState<string[]>([]);
  const [focusChanged, setFocusChanged] = useState(0);
  const providers = useProviders(added);
  const uploads = useApi(async () => {
    const lists = await Promise.all(
      providers.map((providername) => unwrap(costasset.GET('/api/costasset/v1/gpd', { params: { query: { providername } } }))),
    );
    // FOCUS uploads are listed under every provider they hold rows of: they have a list of their own below
    return lists
      .flat()
      .filter((upload) => upload.format !== 'focus')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }, [providers.join(',')]);
  // while an upload enriches, the list follows it
  const active = uploads.data?.some(
    (upload) => upload.status === 'enriching' || upload.status === 'importing' || upload.status === 'uploaded',
  );
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(uploads.reload, 2000);
    return () => clearInterval(timer);
  }, [active]);
  const columns = useMemo(() => uploadColumns(uploads.reload), [uploads.reload]);

  const manages = canManageCostData(me);
  const tabs = TABS.filter(([id]) => id !== 'extensions' || me.is_system_admin);
  const refresh = (onClick: () => void) => (
    <button type="button" class="button ghost small" onClick={onClick}>
      Refresh
    </button>
  );
  return (
    <Page title="Data" subtitle="Load providers' billing data, follow its enrichment, and see what was rejected and why.">
      <Card>
        <div class="tabs" role="tablist" aria-label="Kind of data">
          {tabs.map(([id, label]) => (
            <button
              key={id}
              type="button"
              role="tab"
              id={`tab-${id}`}
              aria-selected={tab === id}
              aria-controls={`panel-${id}`}
              onClick={() => setTab(id)}
            >
              {label}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} style={{ paddingTop: '14px' }}>
          {!manages && tab !== 'extensions' && (
            <p class="muted" data-testid="cost-data-role-needed">
              Loading or removing cost data needs the Cost Data Manager role. You can follow the uploads of the accounts you see below.
            </p>
          )}
          {manages && tab === 'gpd' && (
            <GpdUpload
              providers={providers}
              onUploaded={(provider) => (setAdded((list) => (list.includes(provider) ? list : [...list, provider])), uploads.reload())}
            />
          )}
          {manages && tab === 'focus' && <FocusImport onChanged={() => setFocusChanged((count) => count + 1)} />}
          {tab === 'extensions' && <Extensions />}
        </div>
      </Card>
      <Card title="GPD uploads" actions={refresh(uploads.reload)}>
        <Loaded state={uploads} empty={{ title: 'No uploads yet', body: "Drop a GPD file above to load a provider's costs." }}>
          {(list) => (
            <DataTable
              label="GPD uploads"
              testId="upload-list"
              rows={list}
              columns={columns}
              rowKey={(upload) => upload.GPDUploadRefId}
              rowProps={(upload) => ({ 'data-testid': `upload-${upload.GPDUploadRefId}`, 'data-status': upload.status })}
              detail={(upload) => <RejectedRows errors={upload.errors} testId="rejections" />}
              csv="gpd-uploads"
            />
          )}
        </Loaded>
      </Card>
      <Card title="FOCUS uploads" actions={refresh(() => setFocusChanged((count) => count + 1))}>
        <FocusUploads refresh={focusChanged} />
      </Card>
    </Page>
  );
}
