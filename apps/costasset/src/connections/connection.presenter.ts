import { Problems } from '@lib/core';
import type {
  ConnectionTestResponse,
  ConnectionCredentialsDto,
  ConnectionResponse,
  ConnectionRunResponse,
  ConnectionRunSummary,
  ConnectionScheduleDto,
  ConnectionSourceDto,
} from './dto/connection.dto';
import { scheduleProblem } from './sync-schedule';
import type { ConnectionCredentials } from './sources/open-source';
import type { Connection, ConnectionCheck, ConnectionSchedule, ConnectionSource, ConnectionType } from './schemas/connection.schema';
import type { ConnectionRun } from './schemas/connection-run.schema';

type FieldProblem = { field: string; messages: string[] };

const S3_FIELDS = { source: ['endpoint', 'region', 'bucket'], credentials: ['accessKeyId', 'secretAccessKey'] } as const;
const AZURE_FIELDS = { source: ['accountUrl', 'container'], credentials: ['sasToken', 'accountName', 'accountKey'] } as const;

/**
 * The settings of a connection of `type`, checked for what the type needs and nothing it does not
 * (a 400 naming each field otherwise): the source without empty fields, the credentials, the schedule.
 */
export function connectionSettings(
  type: ConnectionType,
  source: Partial<ConnectionSourceDto>,
  credentials: ConnectionCredentialsDto,
  schedule?: Partial<ConnectionScheduleDto>,
): { source: ConnectionSource; credentials: ConnectionCredentials; schedule?: ConnectionSchedule } {
  const problems: FieldProblem[] = [];
  const need = (field: string, value: unknown, why: string) => value || problems.push({ field, messages: [why] });
  const refuse = (field: string, value: unknown) =>
    value !== undefined && problems.push({ field, messages: [`not used by ${type} connections`] });
  const other = type === 's3' ? AZURE_FIELDS : S3_FIELDS;
  for (const field of other.source) refuse(`source.${field}`, source[field]);
  for (const field of other.credentials) refuse(`credentials.${field}`, credentials[field]);
  if (type === 's3') {
    need('source.bucket', source.bucket, 'required for s3 connections');
    if (!source.endpoint) need('source.region', source.region, 'required for AWS (without endpoint)');
    need('credentials.accessKeyId', credentials.accessKeyId, 'required for s3 connections');
    need('credentials.secretAccessKey', credentials.secretAccessKey, 'required for s3 connections');
  } else {
    need('source.accountUrl', source.accountUrl, 'required for azure-blob connections');
    need('source.container', source.container, 'required for azure-blob connections');
    const withKey = !!(credentials.accountName || credentials.accountKey);
    if (credentials.sasToken && withKey)
      problems.push({ field: 'credentials', messages: ['give a sasToken, or accountName and accountKey, not both'] });
    else if (!credentials.sasToken) {
      need('credentials.accountName', credentials.accountName, 'required without sasToken');
      need('credentials.accountKey', credentials.accountKey, 'required without sasToken');
    }
  }
  for (const field of ['endpoint', 'accountUrl'] as const) {
    const url = source[field] ? new URL(source[field]) : undefined;
    if (url && (url.username || url.password)) problems.push({ field: `source.${field}`, messages: ['must not carry credentials'] });
    if (url && (url.search || url.hash))
      problems.push({
        field: `source.${field}`,
        messages: ['must not carry a query or fragment (a SAS token goes in credentials.sasToken)'],
      });
  }
  const timezone = schedule?.timezone ?? 'UTC';
  const scheduled = schedule
    ? {
        ...(schedule.cron !== undefined ? { cron: schedule.cron } : {}),
        ...(schedule.intervalMinutes !== undefined ? { intervalMinutes: schedule.intervalMinutes } : {}),
        timezone,
      }
    : undefined;
  const invalidSchedule = scheduled && scheduleProblem(scheduled);
  if (invalidSchedule) problems.push({ field: 'schedule', messages: [invalidSchedule] });
  if (problems.length > 0) throw Problems.badRequest('VALIDATION_FAILED', 'The connection settings are incomplete or mixed', problems);
  const kept: ConnectionSource = { prefix: source.prefix ?? '' };
  for (const field of ['endpoint', 'region', 'bucket', 'accountUrl', 'container'] as const) if (source[field]) kept[field] = source[field];
  const keys = Object.fromEntries(
    Object.entries(credentials).filter(([, value]) => value !== undefined && value !== ''),
  ) as ConnectionCredentials;
  return { source: kept, credentials: keys, ...(scheduled ? { schedule: scheduled } : {}) };
}

const iso = (date: Date | undefined | null) => (date ? new Date(date).toISOString() : null);

export function presentCheck(check: ConnectionCheck | ConnectionTestResponse): ConnectionTestResponse {
  const stored = check as ConnectionTestResponse;
  return {
    ok: check.ok,
    checkedAt: iso(new Date(check.checkedAt)) ?? '',
    location: stored.location ?? '',
    objects: check.objects,
    layoutDetected: stored.layoutDetected ?? null,
    billingPeriods: check.billingPeriods,
    importable: stored.importable ?? 0,
    ...(check.problem ? { problem: check.problem } : {}),
    rejected: stored.rejected ?? [],
  };
}

export function presentSummary(run: ConnectionRun): ConnectionRunSummary {
  return {
    runId: run.runId,
    jobId: run.runId,
    trigger: run.trigger,
    status: run.status,
    startedAt: iso(run.startedAt) ?? '',
    finishedAt: iso(run.finishedAt),
    found: run.found,
    imported: run.imported,
    skipped: run.skipped,
    rejected: run.rejected,
    bytesImported: run.bytesImported,
    ...(run.error ? { error: run.error } : {}),
  };
}

export function presentRun(run: ConnectionRun, uploadStatuses: Map<string, string>): ConnectionRunResponse {
  return {
    ...presentSummary(run),
    connectionId: run.connectionId,
    progress: run.progress ?? { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 },
    imports: run.imports.map((entry) => ({ ...entry, uploadStatus: uploadStatuses.get(entry.uploadId) ?? 'unknown' })),
    files: run.files,
    filesTruncated: run.filesTruncated,
  };
}

export function presentConnection(
  connection: Connection,
  check: ConnectionCheck | ConnectionTestResponse | undefined,
  lastRun: ConnectionRun | null,
): ConnectionResponse {
  return {
    id: connection.connectionId,
    name: connection.name,
    type: connection.type,
    layout: connection.layout,
    source: connection.source,
    credentials: {
      kind: connection.type === 's3' ? 'access-key' : connection.accountName ? 'account-key' : 'sas-token',
      ...(connection.accessKeyId ? { accessKeyId: connection.accessKeyId } : {}),
      ...(connection.accountName ? { accountName: connection.accountName } : {}),
    },
    schedule: connection.schedule ?? null,
    enabled: connection.enabled,
    nextSyncAt: iso(connection.nextSyncAt),
    syncing: lastRun?.status === 'queued' || lastRun?.status === 'running',
    lastCheck: check ? presentCheck(check) : null,
    lastRun: lastRun ? presentSummary(lastRun) : null,
    createdAt: iso(connection.createdAt) ?? '',
    updatedAt: iso(connection.updatedAt) ?? '',
  };
}
