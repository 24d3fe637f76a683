import type { components } from '../api/generated/costasset';
import { bytes, number } from '../components/format';

type Schemas = components['schemas'];
export type Connection = Schemas['ConnectionResponse'];
export type ConnectionCheck = Schemas['ConnectionTestResponse'];
export type ConnectionRunSummary = Schemas['ConnectionRunSummary'];
export type ConnectionRun = Schemas['ConnectionRunResponse'];
export type RunFile = Schemas['RunFileResponse'];
export type RunImport = Schemas['RunImportResponse'];
export type ConnectionRequest = Schemas['CreateConnectionRequest'];
export type ConnectionUpdate = Schemas['UpdateConnectionRequest'];
export type ConnectionType = Connection['type'];
export type ConnectionLayout = Connection['layout'];
export type FileOutcome = RunFile['outcome'];

export const TYPES: readonly (readonly [ConnectionType, string])[] = [
  ['s3', 'S3 (AWS, GCS, OCI, R2, MinIO)'],
  ['azure-blob', 'Azure Blob Storage'],
];

/** Each layout, its name in the form, and what it expects under the prefix (one line). */
export const LAYOUTS: readonly { id: ConnectionLayout; label: string; help: string }[] = [
  {
    id: 'aws-data-exports',
    label: 'AWS Data Exports (FOCUS)',
    help: 'Manifests under <export>/metadata/BILLING_PERIOD=YYYY-MM/ name the data files; the latest delivery of each month is imported.',
  },
  {
    id: 'azure-exports',
    label: 'Azure Cost Management exports (FOCUS)',
    help: 'Each run under <export>/<YYYYMMDD-YYYYMMDD>/<runId>/ has a manifest.json; the latest run of each month is imported.',
  },
  {
    id: 'focus-files',
    label: 'Plain FOCUS files',
    help: 'CSV, CSV.gz or Parquet files; the files of one folder are one delivery, imported again whole when any of them changes.',
  },
];

export const layoutLabel = (layout: string | null | undefined) =>
  layout ? (LAYOUTS.find((entry) => entry.id === layout)?.label ?? layout) : 'none';

export type ScheduleKind = 'none' | 'cron' | 'interval';
export type AzureAuth = 'sas-token' | 'account-key';

/** A connection form's fields, as typed (numbers as text; secrets empty unless typed). */
export interface ConnectionForm {
  name: string;
  type: ConnectionType;
  layout: ConnectionLayout;
  endpoint: string;
  region: string;
  bucket: string;
  accountUrl: string;
  container: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  azureAuth: AzureAuth;
  sasToken: string;
  accountName: string;
  accountKey: string;
  scheduleKind: ScheduleKind;
  cron: string;
  timezone: string;
  intervalMinutes: string;
  enabled: boolean;
}

export function blankConnection(type: ConnectionType = 's3'): ConnectionForm {
  return {
    name: '',
    type,
    layout: type === 's3' ? 'aws-data-exports' : 'azure-exports',
    endpoint: '',
    region: '',
    bucket: '',
    accountUrl: '',
    container: '',
    prefix: '',
    accessKeyId: '',
    secretAccessKey: '',
    azureAuth: 'sas-token',
    sasToken: '',
    accountName: '',
    accountKey: '',
    scheduleKind: 'none',
    cron: '0 6 * * *',
    timezone: 'UTC',
    intervalMinutes: '1440',
    enabled: true,
  };
}

/** The form of an existing connection: its settings, the non-secret part of its credentials; secrets stay empty (kept unless typed). */
export function connectionFormOf(connection: Connection): ConnectionForm {
  const blank = blankConnection(connection.type);
  const { source, schedule, credentials } = connection;
  return {
    ...blank,
    name: connection.name,
    layout: connection.layout,
    endpoint: source.endpoint ?? '',
    region: source.region ?? '',
    bucket: source.bucket ?? '',
    accountUrl: source.accountUrl ?? '',
    container: source.container ?? '',
    prefix: source.prefix ?? '',
    accessKeyId: credentials.accessKeyId ?? '',
    azureAuth: credentials.kind === 'account-key' ? 'account-key' : 'sas-token',
    accountName: credentials.accountName ?? '',
    scheduleKind: schedule ? (schedule.cron !== undefined ? 'cron' : 'interval') : 'none',
    cron: schedule?.cron ?? blank.cron,
    timezone: schedule?.timezone ?? blank.timezone,
    intervalMinutes: schedule?.intervalMinutes !== undefined ? String(schedule.intervalMinutes) : blank.intervalMinutes,
    enabled: connection.enabled,
  };
}

/** The fields of a type that are not empty (the API refuses a field another type uses). */
const present = <K extends string>(entries: [K, string][]) =>
  Object.fromEntries(entries.map(([key, value]) => [key, value.trim()]).filter(([, value]) => value !== '')) as Partial<Record<K, string>>;

/** The source of a form, with the fields of its type only; the prefix always (empty: the whole bucket). */
export function sourceOf(form: ConnectionForm): ConnectionRequest['source'] {
  const fields: [keyof ConnectionRequest['source'] & string, string][] =
    form.type === 's3'
      ? [
          ['endpoint', form.endpoint],
          ['region', form.region],
          ['bucket', form.bucket],
        ]
      : [
          ['accountUrl', form.accountUrl],
          ['container', form.container],
        ];
  return { ...present(fields), prefix: form.prefix.trim().replace(/^\/+/, '') };
}

/** The credentials of a form: an access key pair, a SAS token, or an account name and key. Secrets are sent as typed. */
export function credentialsOf(form: ConnectionForm): ConnectionRequest['credentials'] {
  if (form.type === 's3') return { ...present([['accessKeyId', form.accessKeyId]]), ...secret('secretAccessKey', form.secretAccessKey) };
  if (form.azureAuth === 'sas-token') return secret('sasToken', form.sasToken.replace(/^\?/, ''));
  return { ...present([['accountName', form.accountName]]), ...secret('accountKey', form.accountKey) };
}

const secret = (key: string, value: string) => (value.trim() ? { [key]: value.trim() } : {});

/** Whether a new secret was typed (on edit: the credentials are then replaced whole). */
export function secretTyped(form: ConnectionForm): boolean {
  if (form.type === 's3') return form.secretAccessKey.trim() !== '';
  return form.azureAuth === 'sas-token' ? form.sasToken.trim() !== '' : form.accountKey.trim() !== '';
}

/** The schedule of a form, or undefined for none. A cron expression's time zone defaults to UTC. */
export function scheduleOf(form: ConnectionForm): ConnectionRequest['schedule'] {
  if (form.scheduleKind === 'cron') return { cron: form.cron.trim(), timezone: form.timezone.trim() || 'UTC' };
  if (form.scheduleKind === 'interval') return { intervalMinutes: Number(form.intervalMinutes) };
  return undefined;
}

/** The create (and test) request of a form: the fields of its type, its credentials, its schedule when it has one. */
export function createRequest(form: ConnectionForm): ConnectionRequest {
  const schedule = scheduleOf(form);
  return {
    name: form.name.trim(),
    type: form.type,
    layout: form.layout,
    source: sourceOf(form),
    credentials: credentialsOf(form),
    ...(schedule ? { schedule } : {}),
    enabled: form.enabled,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The change request of a form against the connection it edits: the name, the source when changed,
 * the credentials only when a secret is typed (they are replaced whole), the schedule when changed
 * (`null` removes it). The type and layout never change. A changed source or credentials is tested
 * again by the API before it saves.
 */
export function updateRequest(form: ConnectionForm, original: Connection): ConnectionUpdate {
  const before = connectionFormOf(original);
  const source = sourceOf(form);
  const schedule = scheduleOf(form);
  const scheduleChanged = !same(schedule ?? null, scheduleOf(before) ?? null);
  return {
    ...(form.name.trim() !== original.name ? { name: form.name.trim() } : {}),
    ...(!same(source, sourceOf(before)) ? { source } : {}),
    ...(secretTyped(form) ? { credentials: credentialsOf(form) } : {}),
    ...(scheduleChanged ? { schedule: schedule ?? null } : {}),
  };
}

/** The request `POST /connections/test` takes: the create request (a name is required, so an unnamed draft is tested as "test"). */
export function testRequest(form: ConnectionForm): ConnectionRequest {
  const request = createRequest(form);
  return { ...request, name: request.name || 'test' };
}

/**
 * Why an edit's credentials cannot be saved as typed: a changed access key id, account name or kind
 * of credentials without its secret (the credentials are replaced whole, so the secret must come too).
 */
export function credentialsProblem(form: ConnectionForm, original: Connection): string | undefined {
  if (secretTyped(form)) return undefined;
  const before = connectionFormOf(original);
  if (form.type === 's3' && form.accessKeyId.trim() !== before.accessKeyId)
    return 'Type the secret access key of the new access key id too: credentials are replaced whole.';
  if (form.type === 'azure-blob' && form.azureAuth !== before.azureAuth)
    return form.azureAuth === 'sas-token' ? 'Type the SAS token to sign in with one.' : 'Type the account key to sign in with one.';
  if (form.type === 'azure-blob' && form.azureAuth === 'account-key' && form.accountName.trim() !== before.accountName)
    return 'Type the account key of the new account name too: credentials are replaced whole.';
  return undefined;
}

/**
 * How the form can be tested: its own settings (a new connection, or new credentials typed), the
 * stored settings (an edit that changed neither source nor credentials), or not before the secret is
 * typed again (a changed source with the stored secret: the API tests it on save).
 */
export function testPlan(form: ConnectionForm, original?: Connection): 'form' | 'stored' | 'needs-secret' {
  if (!original || secretTyped(form)) return 'form';
  return same(sourceOf(form), sourceOf(connectionFormOf(original))) ? 'stored' : 'needs-secret';
}

const pad = (value: string) => value.padStart(2, '0');
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const ordinal = (day: number) => {
  const tens = day % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][day % 10] ?? 'th');
  return `${day}${suffix}`;
};

/** `every 15 minutes`, `every 2 hours`, `every day`, `every 3 days`. */
export function intervalInWords(minutes: number): string {
  const unit = (count: number, name: string) => (count === 1 ? `every ${name}` : `every ${number(count)} ${name}s`);
  if (minutes % 1440 === 0) return unit(minutes / 1440, 'day');
  if (minutes % 60 === 0) return unit(minutes / 60, 'hour');
  return unit(minutes, 'minute');
}

/** A cron expression in words when it is a common one (daily, weekly, monthly, hourly, every N minutes); as written otherwise. */
export function cronInWords(cron: string): string {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return `cron ${cron}`;
  const [minute, hour, day, month, weekday] = fields;
  const digits = /^\d+$/;
  const at = digits.test(minute) && digits.test(hour) ? `at ${pad(hour)}:${pad(minute)}` : undefined;
  if (at && month === '*') {
    if (day === '*' && weekday === '*') return `every day ${at}`;
    if (day === '*' && /^[0-7]$/.test(weekday)) return `every ${DAYS[Number(weekday) % 7]} ${at}`;
    if (day === '*' && weekday === '1-5') return `every weekday ${at}`;
    if (digits.test(day) && weekday === '*') return `on the ${ordinal(Number(day))} of every month ${at}`;
  }
  if (hour === '*' && day === '*' && month === '*' && weekday === '*') {
    if (digits.test(minute)) return `every hour at minute ${Number(minute)}`;
    const step = /^\*\/(\d+)$/.exec(minute);
    if (step) return intervalInWords(Number(step[1]));
  }
  return `cron ${cron.trim()}`;
}

/** A connection's schedule in words: the cron expression (with its time zone) or the interval; "only when asked" without one. */
export function scheduleInWords(schedule: Connection['schedule']): string {
  if (!schedule) return 'only when asked';
  if (schedule.intervalMinutes !== undefined) return intervalInWords(schedule.intervalMinutes);
  return `${cronInWords(schedule.cron ?? '')} (${schedule.timezone || 'UTC'})`;
}

/** Where a connection reads: `s3://bucket/prefix`, or the container and prefix at the account's host. */
export function locationOf(connection: Pick<Connection, 'type' | 'source'>): string {
  const { source } = connection;
  if (connection.type === 's3') return `s3://${source.bucket ?? ''}/${source.prefix}`;
  let host = source.accountUrl ?? '';
  try {
    host = new URL(host).host;
  } catch {
    // shown as given
  }
  return `${host}/${source.container ?? ''}/${source.prefix}`;
}

/** What a run found and did with it: `found 3 · imported 2 · skipped 1 · rejected 0`. */
export function runCounts(run: Pick<ConnectionRunSummary, 'found' | 'imported' | 'skipped' | 'rejected'>): string {
  const counts = [`found ${number(run.found)}`, `imported ${number(run.imported)}`, `skipped ${number(run.skipped)}`];
  return [...counts, `rejected ${number(run.rejected)}`].join(' · ');
}

/** Whether a run is still moving (queued or running): its page asks again. */
export const runActive = (status: ConnectionRunSummary['status']) => status === 'queued' || status === 'running';

/** Whether an upload a run made is still being imported (its own job). */
export const importActive = (imports: readonly Pick<RunImport, 'uploadStatus'>[]) =>
  imports.some((entry) => entry.uploadStatus === 'importing' || entry.uploadStatus === 'uploaded');

export type OutcomeFilter = FileOutcome | 'all';
export const OUTCOMES: readonly FileOutcome[] = ['imported', 'skipped', 'rejected'];

/** How many files of each outcome, and all of them. */
export function outcomeCounts(files: readonly Pick<RunFile, 'outcome'>[]): Record<OutcomeFilter, number> {
  const counts: Record<OutcomeFilter, number> = { all: files.length, imported: 0, skipped: 0, rejected: 0 };
  for (const file of files) counts[file.outcome]++;
  return counts;
}

export const filesOf = <F extends Pick<RunFile, 'outcome'>>(files: readonly F[], filter: OutcomeFilter): F[] =>
  filter === 'all' ? [...files] : files.filter((file) => file.outcome === filter);

export const OUTCOME_TONES: Record<FileOutcome, string> = { imported: 'ok', skipped: 'idle', rejected: 'bad' };

/** A run's progress in files and bytes, and the share done (files when known, bytes otherwise). */
export function progressOf(progress: ConnectionRun['progress']): { files: string; bytes: string; fraction: number } {
  const fraction = progress.filesTotal
    ? progress.filesDone / progress.filesTotal
    : progress.bytesTotal
      ? progress.bytesDone / progress.bytesTotal
      : 0;
  return {
    files: `${number(progress.filesDone)} of ${number(progress.filesTotal)} files`,
    bytes: `${bytes(progress.bytesDone)} of ${bytes(progress.bytesTotal)}`,
    fraction: Math.min(Math.max(fraction, 0), 1),
  };
}

/** What a test found, in one sentence (the problem is shown apart). */
export function checkInWords(check: ConnectionCheck): string {
  const objects = `${number(check.objects)} object${check.objects === 1 ? '' : 's'} in ${check.location}`;
  const looks = check.layoutDetected ? `, laid out as ${layoutLabel(check.layoutDetected)}` : ', in no layout corelite knows';
  const deliveries = `${number(check.importable)} deliver${check.importable === 1 ? 'y' : 'ies'} to import`;
  const periods = check.billingPeriods.length ? ` (${check.billingPeriods.join(', ')})` : '';
  return `${objects}${looks}; ${deliveries}${periods}.`;
}
