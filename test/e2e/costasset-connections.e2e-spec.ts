import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  BlobServiceClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from '@azure/storage-blob';
import { Client } from 'minio';
import request from 'supertest';
import { LayoutExpectation, writeExportLayout } from '../../tools/focus/export-layouts';
import { stackS3Client, uploadTreeToAzure } from '../support/bucket-tree';
import { costTotals } from '../support/focus';
import { waitForJob } from '../support/ingest';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { configValues } from '../support/config-values';

const CONNECTIONS = '/api/costasset/v1/connections';
const FINAL_RUN = ['succeeded', 'completed_with_errors', 'failed'];
const SECRET = process.env.S3_SECRET_KEY ?? 'S3RVER';

interface Run {
  runId: string;
  trigger: string;
  status: string;
  found: number;
  imported: number;
  skipped: number;
  rejected: number;
  imports: { billingPeriod: string; execution: string; uploadId: string; jobId: string; files: number; uploadStatus: string }[];
  files: { key: string; outcome: string; reason?: string; execution?: string }[];
}

/** `2024-09` and `202409` name one period. */
const compact = (period: string) => period.replace('-', '');

/**
 * Data connections over HTTP against the real stack: AWS Data Exports laid out in the local S3
 * server, Azure exports in the local Blob emulator, as tools/focus writes them (several executions
 * per billing period, restated costs in the later ones). Every total equals the latest execution
 * of each period, never the sum of the snapshots.
 */
describe('costasset data connections', () => {
  let platform: Platform;
  let admin: string;
  let s3: Client;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'connections-'));
  const api = () => request(platform.costasset.url);

  const s3Settings = (bucket: string, prefix: string, layout = 'aws-data-exports') => ({
    name: `aws ${randomUUID().slice(0, 6)}`,
    type: 's3',
    layout,
    source: { endpoint: process.env.S3_ENDPOINT, region: process.env.S3_REGION ?? 'us-east-1', bucket, prefix },
    credentials: { accessKeyId: process.env.S3_ACCESS_KEY ?? 'S3RVER', secretAccessKey: SECRET },
  });

  async function finishedRun(connectionId: string, runId: string, timeoutMs = 60_000): Promise<Run> {
    let run: Run | undefined;
    await eventually(
      async () => {
        const res = await api().get(`${CONNECTIONS}/${connectionId}/runs/${runId}`).set('corelite-token', admin).expect(200);
        expect(FINAL_RUN).toContain(res.body.status);
        run = res.body;
      },
      timeoutMs,
      200,
    );
    return run as Run;
  }

  async function sync(connectionId: string): Promise<Run> {
    const started = await api().post(`${CONNECTIONS}/${connectionId}/sync`).set('corelite-token', admin).expect(202);
    const run = await finishedRun(connectionId, started.body.runId);
    for (const entry of run.imports) {
      const job = await waitForJob(platform, admin, entry.jobId, 60_000);
      expect({ status: job.status, error: job.error }).toEqual({ status: 'succeeded', error: undefined });
    }
    return run;
  }

  /** Rows and billed cost of one billing period, as the cost totals answer them. */
  async function periodTotals(period: string): Promise<{ rows: number; billedCost: number }> {
    const groups = await costTotals(platform, admin, { groupBy: 'billingPeriod' });
    const group = groups.find((entry) => [period, compact(period)].includes(String(entry.key.billingPeriod)));
    return { rows: group?.lineItems ?? 0, billedCost: group?.billedCost ?? 0 };
  }

  /** Puts executions `from`..`to` (1-based) of every period of a generated AWS tree into the bucket. */
  async function putExecutions(expected: LayoutExpectation, dir: string, bucket: string, from: number, to: number): Promise<void> {
    for (const period of Object.values(expected.billingPeriods))
      for (const execution of period.executions.slice(from - 1, to))
        for (const relative of [...execution.dataFiles, execution.manifest])
          await s3.fPutObject(bucket, `${expected.prefix}/${relative}`, path.join(dir, relative));
  }

  beforeAll(async () => {
    platform = await startPlatform({
      CONNECTIONS_ALLOW_PRIVATE_HOSTS: 'true',
      JOBS_RETRY_DELAY_MS: '100',
      CONNECTIONS_SCHEDULE_CHECK_MS: '1000',
    });
    admin = await platform.token({ sub: 'admin' });
    s3 = stackS3Client();
  }, 60_000);
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await platform.close();
  });

  it(
    'AWS Data Exports: imports the latest execution of each billing period once and exactly, never reads an unchanged bucket again, ' +
      'and a newer execution replaces the older',
    async () => {
      const dir = path.join(tmp, 'aws');
      const bucket = `conn-aws-${randomUUID().slice(0, 8)}`;
      const expected = await writeExportLayout({
        layout: 'aws-data-exports',
        out: dir,
        periods: ['2024-09', '2024-10'],
        executions: 3,
        format: 'parquet',
        parts: 2,
        exportName: 'corelite-focus',
        bucket,
        prefix: 'exports',
        rows: 240,
        seed: 7,
        version: '1.0',
      });
      await s3.makeBucket(bucket);
      await putExecutions(expected, dir, bucket, 1, 2);

      const created = await api().post(CONNECTIONS).set('corelite-token', admin).send(s3Settings(bucket, 'exports/')).expect(201);
      expect(JSON.stringify(created.body)).not.toMatch(/secretAccessKey|sealed/);
      expect(created.body).toMatchObject({
        type: 's3',
        layout: 'aws-data-exports',
        credentials: { kind: 'access-key', accessKeyId: process.env.S3_ACCESS_KEY ?? 'S3RVER' },
        lastCheck: { ok: true, layoutDetected: 'aws-data-exports', billingPeriods: ['2024-09', '2024-10'], importable: 2 },
        schedule: null,
        nextSyncAt: null,
      });
      const id = created.body.id as string;

      const first = await sync(id);
      const second = (period: string) => expected.billingPeriods[period].executions[1];
      expect(first).toMatchObject({ status: 'succeeded', found: 12, imported: 4, skipped: 8, rejected: 0 });
      expect(first.imports.map((entry) => [entry.billingPeriod, entry.execution, entry.files])).toEqual([
        ['2024-09', second('2024-09').executionId, 2],
        ['2024-10', second('2024-10').executionId, 2],
      ]);
      const olderData = first.files.filter((file) => file.outcome === 'skipped' && file.key.includes('/data/'));
      expect(olderData).toHaveLength(4);
      expect(olderData[0].reason).toMatch(/older delivery/);
      for (const period of ['2024-09', '2024-10']) {
        const totals = await periodTotals(period);
        expect(totals.rows).toBe(second(period).rows);
        expect(Math.abs(totals.billedCost - Number(second(period).billedCost))).toBeLessThanOrEqual(1e-6);
      }

      const again = await sync(id);
      expect(again).toMatchObject({ status: 'succeeded', found: 12, imported: 0, imports: [] });
      expect(again.files.filter((file) => file.key.includes('/data/') && file.execution === second('2024-09').executionId)).toEqual([
        expect.objectContaining({ outcome: 'skipped', reason: expect.stringMatching(/unchanged since an earlier sync/) }),
        expect.objectContaining({ outcome: 'skipped' }),
      ]);

      await putExecutions(expected, dir, bucket, 3, 3);
      const restated = await sync(id);
      expect(restated).toMatchObject({ status: 'succeeded', found: 18, imported: 4 });
      for (const period of ['2024-09', '2024-10']) {
        const { latest, allExecutions } = expected.billingPeriods[period];
        const totals = await periodTotals(period);
        expect(totals.rows).toBe(latest.rows);
        expect(Math.abs(totals.billedCost - Number(latest.billedCost))).toBeLessThanOrEqual(1e-6);
        // summing every snapshot of the month would have counted it several times
        expect(Number(allExecutions.billedCost)).toBeGreaterThan(Number(latest.billedCost) * 1.5);
      }
      for (const entry of first.imports) {
        const upload = await api().get(`/api/costasset/v1/focus/uploads/${entry.uploadId}`).set('corelite-token', admin).expect(200);
        expect(upload.body.status).toBe('superseded');
      }
      const history = await api().get(`${CONNECTIONS}/${id}/runs`).set('corelite-token', admin).expect(200);
      expect(history.body.items.map((run: Run) => run.imported)).toEqual([4, 0, 4]);
    },
    240_000,
  );

  it('Azure exports in Blob Storage, synced by its schedule: the latest run of the period, and a stray file reported', async () => {
    const dir = path.join(tmp, 'azure');
    const expected = await writeExportLayout({
      layout: 'azure-exports',
      out: dir,
      periods: ['2024-11'],
      executions: 2,
      format: 'csv.gz',
      parts: 2,
      exportName: 'focus-daily',
      bucket: 'exports',
      prefix: 'costs',
      rows: 200,
      seed: 3,
      version: '1.0',
    });
    const accountUrl = process.env.AZURITE_BLOB_URL as string;
    const account = { name: process.env.AZURITE_ACCOUNT_NAME as string, key: process.env.AZURITE_ACCOUNT_KEY as string };
    const container = `conn-${randomUUID().slice(0, 8)}`;
    const blobs = new BlobServiceClient(accountUrl, new StorageSharedKeyCredential(account.name, account.key)).getContainerClient(
      container,
    );
    await uploadTreeToAzure(blobs, 'costs/focus-daily', path.join(dir, 'focus-daily'));
    await blobs.getBlockBlobClient('costs/readme.txt').upload('not billing data', 16);

    // a SAS token with list and read permissions is enough
    const sasToken = generateBlobSASQueryParameters(
      { containerName: container, permissions: ContainerSASPermissions.parse('rl'), expiresOn: new Date(Date.now() + 3_600_000) },
      new StorageSharedKeyCredential(account.name, account.key),
    ).toString();
    const withSas = {
      name: 'azure sas',
      type: 'azure-blob',
      layout: 'azure-exports',
      source: { accountUrl, container, prefix: 'costs/' },
      credentials: { sasToken },
    };
    const tested = await api().post(`${CONNECTIONS}/test`).set('corelite-token', admin).send(withSas).expect(200);
    expect(tested.body).toMatchObject({ ok: true, layoutDetected: 'azure-exports', billingPeriods: ['2024-11'], importable: 1 });
    const readOnly = generateBlobSASQueryParameters(
      { containerName: container, permissions: ContainerSASPermissions.parse('r'), expiresOn: new Date(Date.now() + 3_600_000) },
      new StorageSharedKeyCredential(account.name, account.key),
    ).toString();
    const noList = await api()
      .post(`${CONNECTIONS}/test`)
      .set('corelite-token', admin)
      .send({ ...withSas, credentials: { sasToken: readOnly } })
      .expect(200);
    expect(noList.body).toMatchObject({ ok: false, problem: expect.stringMatching(/AuthorizationPermissionMismatch|403/) });

    const created = await api()
      .post(CONNECTIONS)
      .set('corelite-token', admin)
      .send({
        name: 'azure billing',
        type: 'azure-blob',
        layout: 'azure-exports',
        source: { accountUrl, container, prefix: 'costs/' },
        credentials: { accountName: account.name, accountKey: account.key },
        schedule: { cron: '* * * * *' },
      })
      .expect(201);
    expect(JSON.stringify(created.body)).not.toContain(account.key);
    expect(created.body).toMatchObject({ credentials: { kind: 'account-key', accountName: account.name }, schedule: { timezone: 'UTC' } });
    expect(Date.parse(created.body.nextSyncAt) - Date.now()).toBeLessThanOrEqual(61_000);

    let run: Run | undefined;
    await eventually(
      async () => {
        const connection = await api().get(`${CONNECTIONS}/${created.body.id}`).set('corelite-token', admin).expect(200);
        expect(connection.body.lastRun).toMatchObject({ trigger: 'schedule' });
        run = await finishedRun(created.body.id, connection.body.lastRun.runId);
      },
      90_000,
      1000,
    );
    const { latest } = expected.billingPeriods['2024-11'];
    expect(run).toMatchObject({ status: 'completed_with_errors', imported: 2, rejected: 1 });
    expect(run!.files.find((file) => file.key === 'costs/readme.txt')).toMatchObject({
      outcome: 'rejected',
      reason: expect.stringMatching(/not part of the azure-exports layout/),
    });
    expect(run!.imports).toEqual([expect.objectContaining({ billingPeriod: '2024-11', execution: latest.executionId })]);
    // the Azure rows are billed in EUR, and the tenant has no rate for it yet: the import fails, saying so
    const failed = await waitForJob(platform, admin, run!.imports[0].jobId, 60_000);
    expect(failed).toMatchObject({ status: 'failed' });
    const upload = await api().get(`/api/costasset/v1/focus/uploads/${run!.imports[0].uploadId}`).set('corelite-token', admin).expect(200);
    expect(upload.body.errors[0].reason).toMatch(/no exchange rate from EUR/);
    const config = configValues(platform, admin);
    await config('INSTANCE_CURRENCIES', ['USD', 'EUR']);
    await config('CURRENCY_EXCHANGE_RATES', { EUR: 1.1 });
    await config('DEFAULT_CURRENCY', 'USD');

    // the files are unchanged, but the next sync imports the delivery again since its import failed
    const mended = await sync(created.body.id);
    expect(mended.imports).toEqual([expect.objectContaining({ uploadId: run!.imports[0].uploadId, uploadStatus: expect.any(String) })]);
    expect(mended.files.filter((file) => file.outcome === 'imported')).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/last import failed \(no exchange rate from EUR/) }),
      expect.objectContaining({ reason: expect.stringMatching(/last import failed/) }),
    ]);
    const totals = await periodTotals('2024-11');
    expect(totals.rows).toBe(latest.rows);
    expect(Math.abs(totals.billedCost - Number(latest.billedCost))).toBeLessThanOrEqual(1e-6);
  }, 180_000);

  it('refuses what it cannot use and says why, syncs one connection once at a time, and never shows a secret', async () => {
    const bucket = `conn-misc-${randomUUID().slice(0, 8)}`;
    await s3.makeBucket(bucket);
    await s3.putObject(bucket, 'focus/2024-12/part-1.csv', 'BilledCost\n1\n');

    const wrongSecret = {
      ...s3Settings(bucket, 'focus/', 'focus-files'),
      credentials: { accessKeyId: 'not-a-key', secretAccessKey: 'not-the-secret' },
    };
    const refused = await api().post(CONNECTIONS).set('corelite-token', admin).send(wrongSecret).expect(400);
    expectProblem(refused, 400, 'CONNECTION_TEST_FAILED');
    expect(refused.body.detail).toMatch(/InvalidAccessKeyId/);
    const empty = await api()
      .post(CONNECTIONS)
      .set('corelite-token', admin)
      .send(s3Settings(bucket, 'nothing-here/', 'focus-files'))
      .expect(400);
    expect(empty.body.detail).toMatch(/no object is under nothing-here\//);
    const wrongLayout = await api().post(`${CONNECTIONS}/test`).set('corelite-token', admin).send(s3Settings(bucket, 'focus/')).expect(200);
    expect(wrongLayout.body).toMatchObject({
      ok: false,
      layoutDetected: 'focus-files',
      problem: expect.stringMatching(/look like the focus-files layout/),
    });
    const mixed = await api()
      .post(CONNECTIONS)
      .set('corelite-token', admin)
      .send({ ...s3Settings(bucket, 'focus/', 'focus-files'), credentials: { sasToken: 'sv=2024' } })
      .expect(400);
    expect(mixed.body.errors.map((error: { field: string }) => error.field)).toEqual(
      expect.arrayContaining(['credentials.sasToken', 'credentials.accessKeyId', 'credentials.secretAccessKey']),
    );
    const unknownField = await api()
      .post(CONNECTIONS)
      .set('corelite-token', admin)
      .send({ ...s3Settings(bucket, 'focus/', 'focus-files'), owner: 'me' })
      .expect(400);
    expectProblem(unknownField, 400, 'VALIDATION_FAILED');
    const { source: _source, ...withoutSource } = s3Settings(bucket, 'focus/', 'focus-files');
    expectProblem(await api().post(CONNECTIONS).set('corelite-token', admin).send(withoutSource).expect(400), 400, 'VALIDATION_FAILED');
    const list = await api().get(CONNECTIONS).set('corelite-token', admin).expect(200);
    expect(JSON.stringify(list.body)).not.toContain('not-the-secret');

    const created = await api()
      .post(CONNECTIONS)
      .set('corelite-token', admin)
      .send(s3Settings(bucket, 'focus/', 'focus-files'))
      .expect(201);
    const id = created.body.id as string;
    const [a, b] = await Promise.all([
      api().post(`${CONNECTIONS}/${id}/sync`).set('corelite-token', admin).expect(202),
      api().post(`${CONNECTIONS}/${id}/sync`).set('corelite-token', admin).expect(202),
    ]);
    expect(a.body.runId).toBe(b.body.runId);
    expect([a.body.alreadyRunning, b.body.alreadyRunning].sort()).toEqual([false, true]);
    await finishedRun(id, a.body.runId);
    const history = await api().get(`${CONNECTIONS}/${id}/runs`).set('corelite-token', admin).expect(200);
    expect(history.body.items).toHaveLength(1);

    const renamed = await api()
      .patch(`${CONNECTIONS}/${id}`)
      .set('corelite-token', admin)
      .send({ schedule: { intervalMinutes: 60 } })
      .expect(200);
    expect(renamed.body.schedule).toEqual({ intervalMinutes: 60, timezone: 'UTC' });
    const badCron = await api()
      .patch(`${CONNECTIONS}/${id}`)
      .set('corelite-token', admin)
      .send({ schedule: { cron: '61 * * * *' } })
      .expect(400);
    expect(badCron.body.errors).toEqual([expect.objectContaining({ field: 'schedule' })]);

    await api().delete(`${CONNECTIONS}/${id}`).set('corelite-token', admin).expect(204);
    expectProblem(await api().get(`${CONNECTIONS}/${id}`).set('corelite-token', admin).expect(404), 404, 'CONNECTION_NOT_FOUND');
  }, 120_000);
});
