import { describe, expect, it } from '@jest/globals';
import {
  blankConnection,
  checkInWords,
  type Connection,
  connectionFormOf,
  createRequest,
  credentialsProblem,
  cronInWords,
  filesOf,
  importActive,
  intervalInWords,
  locationOf,
  outcomeCounts,
  progressOf,
  runActive,
  runCounts,
  scheduleInWords,
  testPlan,
  testRequest,
  updateRequest,
} from './connections-logic';

const connection = (fields: Partial<Connection> = {}): Connection => ({
  id: 'c1',
  name: 'AWS payer',
  type: 's3',
  layout: 'aws-data-exports',
  source: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'billing', prefix: 'exports/' },
  credentials: { kind: 'access-key', accessKeyId: 'AKIA1' },
  schedule: { cron: '0 6 * * *', timezone: 'Europe/Paris' },
  enabled: true,
  nextSyncAt: null,
  syncing: false,
  lastCheck: null,
  lastRun: null,
  createdAt: '',
  updatedAt: '',
  ...fields,
});

describe('connection forms', () => {
  it('sends an s3 connection the s3 fields only, without empty ones, and its schedule', () => {
    const form = {
      ...blankConnection('s3'),
      name: ' Payer ',
      layout: 'focus-files' as const,
      endpoint: ' http://127.0.0.1:9000 ',
      region: 'us-east-1',
      bucket: 'billing',
      prefix: '/focus/',
      accessKeyId: 'AKIA1',
      secretAccessKey: 'secret',
      accountUrl: 'https://left.over',
      sasToken: 'left-over',
      scheduleKind: 'interval' as const,
      intervalMinutes: '60',
    };
    expect(createRequest(form)).toEqual({
      name: 'Payer',
      type: 's3',
      layout: 'focus-files',
      source: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'billing', prefix: 'focus/' },
      credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'secret' },
      schedule: { intervalMinutes: 60 },
      enabled: true,
    });
    expect(createRequest({ ...form, endpoint: '', scheduleKind: 'none' })).not.toHaveProperty('schedule');
    expect(createRequest({ ...form, endpoint: '' }).source).toEqual({ region: 'us-east-1', bucket: 'billing', prefix: 'focus/' });
  });

  it('sends an azure-blob connection a SAS token or an account name and key, never both, and a cron schedule with its zone', () => {
    const form = {
      ...blankConnection('azure-blob'),
      name: 'Azure',
      accountUrl: 'https://contoso.blob.core.windows.net',
      container: 'exports',
      bucket: 'left-over',
      sasToken: '?sv=2024&sig=x',
      accountName: 'contoso',
      accountKey: 'key',
      scheduleKind: 'cron' as const,
      cron: ' 0 6 * * 1 ',
      timezone: '',
    };
    const request = createRequest(form);
    expect(request).toMatchObject({
      type: 'azure-blob',
      layout: 'azure-exports',
      source: { accountUrl: 'https://contoso.blob.core.windows.net', container: 'exports', prefix: '' },
      credentials: { sasToken: 'sv=2024&sig=x' },
      schedule: { cron: '0 6 * * 1', timezone: 'UTC' },
    });
    expect(request.source).not.toHaveProperty('bucket');
    expect(createRequest({ ...form, azureAuth: 'account-key' }).credentials).toEqual({ accountName: 'contoso', accountKey: 'key' });
  });

  it('tests an unnamed draft under a placeholder name', () => {
    expect(testRequest(blankConnection()).name).toBe('test');
    expect(testRequest({ ...blankConnection(), name: 'Mine' }).name).toBe('Mine');
  });

  it('fills an edit form with the settings and the non-secret part of the credentials, never a secret', () => {
    const form = connectionFormOf(connection());
    expect(form).toMatchObject({
      name: 'AWS payer',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'billing',
      prefix: 'exports/',
      accessKeyId: 'AKIA1',
      secretAccessKey: '',
      scheduleKind: 'cron',
      cron: '0 6 * * *',
      timezone: 'Europe/Paris',
    });
    expect(connectionFormOf(connection({ schedule: { intervalMinutes: 30, timezone: 'UTC' } }))).toMatchObject({
      scheduleKind: 'interval',
      intervalMinutes: '30',
    });
    expect(connectionFormOf(connection({ schedule: null })).scheduleKind).toBe('none');
    const azure = connection({ type: 'azure-blob', source: { prefix: '' }, credentials: { kind: 'account-key', accountName: 'contoso' } });
    expect(connectionFormOf(azure)).toMatchObject({ azureAuth: 'account-key', accountName: 'contoso', accountKey: '' });
  });

  it('changes only what was changed: the credentials when a secret is typed, a removed schedule as null', () => {
    const original = connection();
    const form = connectionFormOf(original);
    expect(updateRequest(form, original)).toEqual({});
    expect(updateRequest({ ...form, name: 'Renamed' }, original)).toEqual({ name: 'Renamed' });
    expect(updateRequest({ ...form, prefix: 'other/' }, original)).toEqual({
      source: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'billing', prefix: 'other/' },
    });
    expect(updateRequest({ ...form, secretAccessKey: 'new' }, original)).toEqual({
      credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'new' },
    });
    expect(updateRequest({ ...form, scheduleKind: 'none' }, original)).toEqual({ schedule: null });
    expect(updateRequest({ ...form, timezone: 'UTC' }, original)).toEqual({ schedule: { cron: '0 6 * * *', timezone: 'UTC' } });
  });

  it('asks for the secret when the credentials change without it, and tests what can be tested', () => {
    const original = connection();
    const form = connectionFormOf(original);
    expect(credentialsProblem(form, original)).toBeUndefined();
    expect(credentialsProblem({ ...form, accessKeyId: 'AKIA2' }, original)).toContain('secret access key');
    expect(credentialsProblem({ ...form, accessKeyId: 'AKIA2', secretAccessKey: 's' }, original)).toBeUndefined();
    expect(testPlan(blankConnection())).toBe('form');
    expect(testPlan(form, original)).toBe('stored');
    expect(testPlan({ ...form, name: 'Other', scheduleKind: 'none' }, original)).toBe('stored');
    expect(testPlan({ ...form, bucket: 'other' }, original)).toBe('needs-secret');
    expect(testPlan({ ...form, bucket: 'other', secretAccessKey: 's' }, original)).toBe('form');
  });
});

describe('connections in words', () => {
  it('says a schedule: common cron expressions in words with their zone, intervals in the largest whole unit', () => {
    expect(scheduleInWords(null)).toBe('only when asked');
    expect(scheduleInWords({ cron: '0 6 * * *', timezone: 'Europe/Paris' })).toBe('every day at 06:00 (Europe/Paris)');
    expect(scheduleInWords({ intervalMinutes: 15, timezone: 'UTC' })).toBe('every 15 minutes');
    expect(cronInWords('30 7 * * 1')).toBe('every Monday at 07:30');
    expect(cronInWords('0 5 * * 1-5')).toBe('every weekday at 05:00');
    expect(cronInWords('0 4 2 * *')).toBe('on the 2nd of every month at 04:00');
    expect(cronInWords('15 * * * *')).toBe('every hour at minute 15');
    expect(cronInWords('*/30 * * * *')).toBe('every 30 minutes');
    expect(cronInWords('0 6 1 1 *')).toBe('cron 0 6 1 1 *');
    expect(cronInWords('0 6 * *')).toBe('cron 0 6 * *');
    expect(intervalInWords(60)).toBe('every hour');
    expect(intervalInWords(120)).toBe('every 2 hours');
    expect(intervalInWords(1440)).toBe('every day');
    expect(intervalInWords(44_640)).toBe('every 31 days');
    expect(intervalInWords(90)).toBe('every 90 minutes');
  });

  it('says where a connection reads', () => {
    expect(locationOf(connection())).toBe('s3://billing/exports/');
    expect(
      locationOf({
        type: 'azure-blob',
        source: { accountUrl: 'https://contoso.blob.core.windows.net', container: 'exports', prefix: 'focus/' },
      }),
    ).toBe('contoso.blob.core.windows.net/exports/focus/');
  });

  it('says what a test found', () => {
    const check = {
      ok: true,
      checkedAt: '',
      location: 's3://billing',
      objects: 2,
      layoutDetected: 'focus-files' as const,
      billingPeriods: ['2024-09'],
      importable: 1,
      rejected: [],
    };
    expect(checkInWords(check)).toBe('2 objects in s3://billing, laid out as Plain FOCUS files; 1 delivery to import (2024-09).');
    expect(checkInWords({ ...check, objects: 1, layoutDetected: null, billingPeriods: [], importable: 0 })).toBe(
      '1 object in s3://billing, in no layout corelite knows; 0 deliveries to import.',
    );
  });
});

describe('runs', () => {
  const files = [
    { key: 'a', outcome: 'imported' as const },
    { key: 'b', outcome: 'imported' as const },
    { key: 'c', outcome: 'skipped' as const },
    { key: 'd', outcome: 'rejected' as const },
  ];

  it('counts and filters files by outcome', () => {
    expect(outcomeCounts(files)).toEqual({ all: 4, imported: 2, skipped: 1, rejected: 1 });
    expect(outcomeCounts([])).toEqual({ all: 0, imported: 0, skipped: 0, rejected: 0 });
    expect(filesOf(files, 'imported').map((file) => file.key)).toEqual(['a', 'b']);
    expect(filesOf(files, 'all')).toHaveLength(4);
  });

  it('says what a run did and whether it still moves', () => {
    expect(runCounts({ found: 1234, imported: 2, skipped: 1, rejected: 0 })).toBe('found 1,234 · imported 2 · skipped 1 · rejected 0');
    expect(runActive('queued')).toBe(true);
    expect(runActive('running')).toBe(true);
    expect(runActive('completed_with_errors')).toBe(false);
    expect(importActive([{ uploadStatus: 'imported' }, { uploadStatus: 'importing' }])).toBe(true);
    expect(importActive([{ uploadStatus: 'superseded' }])).toBe(false);
  });

  it('measures progress in files, or bytes when no file count is known', () => {
    expect(progressOf({ filesDone: 1, filesTotal: 4, bytesDone: 2048, bytesTotal: 4096 })).toEqual({
      files: '1 of 4 files',
      bytes: '2.0 KB of 4.0 KB',
      fraction: 0.25,
    });
    expect(progressOf({ filesDone: 0, filesTotal: 0, bytesDone: 10, bytesTotal: 40 }).fraction).toBe(0.25);
    expect(progressOf({ filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 }).fraction).toBe(0);
  });
});
