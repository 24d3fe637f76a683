import type { ListedObject } from '../sources/bucket-source';
import { awsDataExports } from './aws-data-exports';
import { azureExports } from './azure-exports';
import type { ExportLayout } from './export-layout';
import { fingerprintOf, focusFiles } from './focus-files';

let clock = Date.parse('2026-10-01T00:00:00Z');
const object = (key: string, etag = 'e1', size = 10): ListedObject => ({ key, etag, size, lastModified: new Date((clock += 1000)) });

/** A bucket as a map of key → text (manifests), listed in the order given. */
function bucket(entries: [string, string?][]) {
  const objects = entries.map(([key]) => object(key));
  const texts = new Map(entries.filter(([, text]) => text !== undefined) as [string, string][]);
  return {
    objects,
    read: (layout: ExportLayout) => async (listed: ListedObject) => layout.parseManifest(listed.key, texts.get(listed.key) ?? ''),
  };
}

const awsManifest = (execution: string, period: string, files: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    executionId: execution,
    exportArn: 'arn:aws:bcm-data-exports:us-east-1:123456789012:export/focus-1',
    columns: [{ name: 'BilledCost', type: 'decimal' }],
    dataFiles: files.map((file) => `s3://billing/${file}`),
    billingPeriod: { start: `${period}-01T00:00:00.000Z` },
    ...extra,
  });

describe('AWS Data Exports layout', () => {
  const data = (period: string, execution: string, part: number) =>
    `exports/focus/data/BILLING_PERIOD=${period}/${execution}/focus-0000${part}.snappy.parquet`;
  const meta = (period: string, execution: string) => `exports/focus/metadata/BILLING_PERIOD=${period}/${execution}/focus-Manifest.json`;

  it('imports the latest execution of each billing period and skips the data of older ones (never summed)', async () => {
    const { objects, read } = bucket([
      [data('2026-09', 'e1', 1)],
      [data('2026-09', 'e1', 2)],
      [meta('2026-09', 'e1'), awsManifest('e1', '2026-09', [data('2026-09', 'e1', 1), data('2026-09', 'e1', 2)])],
      [data('2026-09', 'e2', 1)],
      [meta('2026-09', 'e2'), awsManifest('e2', '2026-09', [data('2026-09', 'e2', 1)])],
      [data('2026-10', 'e3', 1)],
      [meta('2026-10', 'e3'), awsManifest('e3', '2026-10', [data('2026-10', 'e3', 1)])],
    ]);
    const plan = await awsDataExports.plan(objects, read(awsDataExports));
    expect(plan.groups.map((group) => [group.group, group.execution, group.files.map((file) => file.key)])).toEqual([
      ['exports/focus|2026-09', 'e2', [data('2026-09', 'e2', 1)]],
      ['exports/focus|2026-10', 'e3', [data('2026-10', 'e3', 1)]],
    ]);
    const older = plan.notes.filter((note) => note.execution === 'e1' && note.outcome === 'skipped' && note.object.key.includes('/data/'));
    expect(older.map((note) => note.object.key)).toEqual([data('2026-09', 'e1', 1), data('2026-09', 'e1', 2)]);
    expect(older[0].reason).toMatch(/older delivery \(e1\).*latest \(e2\)/);
  });

  it('keeps two exports under one prefix apart, and reports what belongs to no manifest or to no layout', async () => {
    const { objects, read } = bucket([
      ['exports/a/data/BILLING_PERIOD=2026-09/a-00001.csv.gz'],
      [
        'exports/a/metadata/BILLING_PERIOD=2026-09/a-Manifest.json',
        awsManifest('x', '2026-09', ['exports/a/data/BILLING_PERIOD=2026-09/a-00001.csv.gz']),
      ],
      ['exports/b/data/BILLING_PERIOD=2026-09/b-00001.csv.gz'],
      [
        'exports/b/metadata/BILLING_PERIOD=2026-09/b-Manifest.json',
        awsManifest('y', '2026-09', ['exports/b/data/BILLING_PERIOD=2026-09/b-00001.csv.gz']),
      ],
      ['exports/b/data/BILLING_PERIOD=2026-09/stray-00009.csv.gz'],
      ['exports/README.txt'],
    ]);
    const plan = await awsDataExports.plan(objects, read(awsDataExports));
    expect(plan.groups.map((group) => group.group)).toEqual(['exports/a|2026-09', 'exports/b|2026-09']);
    const byKey = Object.fromEntries(plan.notes.map((note) => [note.object.key, note]));
    expect(byKey['exports/b/data/BILLING_PERIOD=2026-09/stray-00009.csv.gz']).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/no manifest/),
    });
    expect(byKey['exports/README.txt']).toMatchObject({
      outcome: 'rejected',
      reason: expect.stringMatching(/not part of the aws-data-exports layout/),
    });
  });

  it('does not import a delivery whose manifest names a file not yet in the bucket, nor a non-FOCUS export', async () => {
    const incomplete = bucket([
      [data('2026-09', 'e1', 1)],
      [meta('2026-09', 'e1'), awsManifest('e1', '2026-09', [data('2026-09', 'e1', 1), data('2026-09', 'e1', 2)])],
    ]);
    const plan = await awsDataExports.plan(incomplete.objects, incomplete.read(awsDataExports));
    expect(plan.groups).toEqual([]);
    expect(plan.notes.find((note) => note.object.key === data('2026-09', 'e1', 1))?.reason).toMatch(/incomplete/);

    const cur = bucket([
      [data('2026-09', 'e1', 1)],
      [
        meta('2026-09', 'e1'),
        awsManifest('e1', '2026-09', [data('2026-09', 'e1', 1)], { columns: [{ name: 'line_item_unblended_cost' }] }),
      ],
    ]);
    const curPlan = await awsDataExports.plan(cur.objects, cur.read(awsDataExports));
    expect(curPlan.groups).toEqual([]);
    expect(curPlan.notes.find((note) => note.outcome === 'rejected')?.reason).toMatch(/not FOCUS/);
  });

  it('reports a manifest that does not parse as rejected', async () => {
    const { objects, read } = bucket([[meta('2026-09', 'e1'), '{not json']]);
    const plan = await awsDataExports.plan(objects, read(awsDataExports));
    expect(plan.notes).toEqual([
      expect.objectContaining({ outcome: 'rejected', reason: expect.stringMatching(/not a readable manifest: not JSON/) }),
    ]);
  });
});

describe('Azure exports layout', () => {
  const folder = (run: string) => `costs/focus-daily/20260901-20260930/${run}`;
  const manifest = (run: string, submitted: string, blobs: string[], type = 'FocusCost') =>
    JSON.stringify({
      manifestVersion: '2024-04-01',
      exportConfig: { exportName: 'focus-daily', type },
      runInfo: { runId: run, submittedTime: submitted, startDate: '2026-09-01T00:00:00' },
      blobs: blobs.map((blobName) => ({ blobName, byteCount: 10, dataRowCount: 1 })),
    });

  it('imports the latest run of a billing period by its submitted time, whatever the listing order', async () => {
    const { objects, read } = bucket([
      [`${folder('run-b')}/part_0_0001.csv.gz`],
      [`${folder('run-b')}/manifest.json`, manifest('run-b', '2026-09-20T10:00:00Z', [`${folder('run-b')}/part_0_0001.csv.gz`])],
      [`${folder('run-a')}/part_0_0001.csv.gz`],
      [`${folder('run-a')}/manifest.json`, manifest('run-a', '2026-09-10T10:00:00Z', [`${folder('run-a')}/part_0_0001.csv.gz`])],
    ]);
    const plan = await azureExports.plan(objects, read(azureExports));
    expect(plan.groups).toEqual([
      expect.objectContaining({ group: 'costs/focus-daily|2026-09', billingPeriod: '2026-09', execution: 'run-b' }),
    ]);
    expect(plan.notes.find((note) => note.object.key === `${folder('run-a')}/part_0_0001.csv.gz`)?.outcome).toBe('skipped');
  });

  it('refuses an export that is not FOCUS, saying which dataset to choose', async () => {
    const { objects, read } = bucket([
      [`${folder('r')}/part_0_0001.csv.gz`],
      [`${folder('r')}/manifest.json`, manifest('r', '2026-09-20T10:00:00Z', [`${folder('r')}/part_0_0001.csv.gz`], 'ActualCost')],
    ]);
    const plan = await azureExports.plan(objects, read(azureExports));
    expect(plan.groups).toEqual([]);
    expect(plan.notes.find((note) => note.outcome === 'rejected')?.reason).toMatch(/ActualCost, not FOCUS/);
  });
});

describe('focus-files layout', () => {
  it('makes one delivery of each folder, finds a billing period in the path, and rejects what is not FOCUS', async () => {
    const { objects } = bucket([
      ['focus/2026-09/part-1.csv'],
      ['focus/2026-09/part-2.parquet'],
      ['focus/BILLING_PERIOD=2026-10/all.csv.gz'],
      ['focus/2026-10/metadata/x-Manifest.json'],
      ['notes.txt'],
    ]);
    const plan = await focusFiles.plan(objects, async () => {
      throw new Error('no manifests');
    });
    expect(plan.groups.map((group) => [group.group, group.billingPeriod, group.files.length])).toEqual([
      ['focus/2026-09', '2026-09', 2],
      ['focus/BILLING_PERIOD=2026-10', '2026-10', 1],
    ]);
    expect(plan.notes.map((note) => [note.object.key, note.outcome])).toEqual([
      ['focus/2026-10/metadata/x-Manifest.json', 'rejected'],
      ['notes.txt', 'rejected'],
    ]);
    expect(plan.notes[0].reason).toMatch(/use the aws-data-exports layout/);
  });

  it('names a delivery by its files: a changed ETag is another delivery, the order of the listing is not', () => {
    const a = object('f/a.csv', 'x');
    const b = object('f/b.csv', 'y');
    expect(fingerprintOf([a, b])).toBe(fingerprintOf([b, a]));
    expect(fingerprintOf([a, { ...b, etag: 'z' }])).not.toBe(fingerprintOf([a, b]));
  });
});

describe('Azure exports whose manifest names blobs from another root', () => {
  it('finds the blobs in the run folder of the manifest', async () => {
    const run = 'moved/focus-daily/20260901-20260930/run-1';
    const { objects, read } = bucket([
      [`${run}/part_0_0001.csv.gz`],
      [
        `${run}/manifest.json`,
        JSON.stringify({
          runInfo: { runId: 'run-1', submittedTime: '2026-09-20T10:00:00Z', startDate: '2026-09-01T00:00:00' },
          blobs: [{ blobName: 'original-root/focus-daily/20260901-20260930/run-1/part_0_0001.csv.gz' }],
        }),
      ],
    ]);
    const plan = await azureExports.plan(objects, read(azureExports));
    expect(plan.groups.map((group) => group.files.map((file) => file.key))).toEqual([[`${run}/part_0_0001.csv.gz`]]);
    expect(plan.notes.filter((note) => note.outcome === 'rejected')).toEqual([]);
  });
});

describe('AWS manifests naming their files percent-encoded', () => {
  it('finds the files by their decoded keys', async () => {
    const key = 'exports/focus/data/BILLING_PERIOD=2026-09/e1/focus-00001.snappy.parquet';
    const { objects, read } = bucket([
      [key],
      [
        'exports/focus/metadata/BILLING_PERIOD=2026-09/e1/focus-Manifest.json',
        awsManifest('e1', '2026-09', ['exports/focus/data/BILLING_PERIOD%3D2026-09/e1/focus-00001.snappy.parquet']),
      ],
    ]);
    const plan = await awsDataExports.plan(objects, read(awsDataExports));
    expect(plan.groups.map((group) => group.files.map((file) => file.key))).toEqual([[key]]);
  });
});
