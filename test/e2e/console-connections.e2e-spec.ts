import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { REPO_ROOT } from '../../tools/stack/settings';
import { bytes } from '../../apps/console/src/components/format';
import { attributesOf, expectAccessible, launchBrowser, TestBrowser } from '../support/browser';
import { stackS3Client } from '../support/bucket-tree';
import { focusFile, GeneratedFocus } from '../support/focus';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';

const API = '/api/costasset/v1';
const SCREENSHOTS = join(REPO_ROOT, '.stack', 'test', 'screenshots-connections');
const S3_ENDPOINT = process.env.S3_ENDPOINT ?? 'http://127.0.0.1:9000';
const S3_REGION = process.env.S3_REGION ?? 'us-east-1';
const S3_ACCESS_KEY = process.env.S3_ACCESS_KEY ?? '';
const S3_SECRET_KEY = process.env.S3_SECRET_KEY ?? '';
const BUCKET = `console-conn-${randomUUID().slice(0, 8)}`;
const FOLDER = 'focus/2024-09/';
const WRONG_KEY = 'NOSUCHKEY';

/**
 * The console's Connections page in a real browser (Debian's Chromium through playwright-core),
 * served by the gateway from the built console, against the stack's S3 server: the empty state,
 * a connection to a bucket of two FOCUS files written and tested in the form (what the test finds
 * against the API's own test), saved, synced from the list, its run followed until its upload is
 * imported, the per-file table and its filter, a second sync that skips the unchanged files, the
 * run history; wrong credentials' problem shown and nothing saved; and a member kept out.
 */
describe('web console: connections', () => {
  let platform: Platform;
  let browser: TestBrowser;
  let gateway: string;
  let admin: string;
  const files: { key: string; file: GeneratedFocus }[] = [];
  const api = () => request(platform.gateway.url);
  const signInLink = async (sub: string) => `${gateway}/#token=${await platform.token({ sub }, 3600)}`;

  async function screenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  /** The settings the form is filled with, as the API takes them. */
  const settings = (accessKeyId: string, secretAccessKey: string, name: string) => ({
    name,
    type: 's3',
    layout: 'focus-files',
    source: { endpoint: S3_ENDPOINT, region: S3_REGION, bucket: BUCKET, prefix: 'focus/' },
    credentials: { accessKeyId, secretAccessKey },
  });

  async function fillForm(page: Page, accessKey: string, secret: string, name: string): Promise<void> {
    await page.fill('#connection-name', name);
    await page.selectOption('#connection-type', 's3');
    await page.selectOption('#connection-layout', 'focus-files');
    expect(await page.textContent('[data-testid="layout-help"]')).toContain('the files of one folder are one delivery');
    await page.fill('#connection-endpoint', S3_ENDPOINT);
    await page.fill('#connection-region', S3_REGION);
    await page.fill('#connection-bucket', BUCKET);
    await page.fill('#connection-prefix', 'focus/');
    await page.fill('#connection-access-key', accessKey);
    await page.fill('#connection-secret-key', secret);
    expect(await page.getAttribute('#connection-secret-key', 'type')).toBe('password');
  }

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'console', 'index.html'))) {
      const build = spawnSync('npm', ['run', '-s', 'build:console'], { cwd: REPO_ROOT, stdio: 'inherit' });
      if (build.status !== 0) throw new Error('the console did not build');
    }
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    // two parts of one delivery (one folder), of different providers so that their rows never overlap, both in USD (no exchange
    // rate is loaded for 2024-09)
    files.push(
      {
        key: `${FOLDER}part-1.csv`,
        file: await focusFile({ version: '1.2', format: 'csv', rows: 40, providers: ['aws'], periods: ['202409'] }, 'part-1.csv'),
      },
      {
        key: `${FOLDER}part-2.csv`,
        file: await focusFile({ version: '1.2', format: 'csv', rows: 30, providers: ['oci'], periods: ['202409'] }, 'part-2.csv'),
      },
    );
    const store = stackS3Client();
    await store.makeBucket(BUCKET, S3_REGION);
    for (const { key, file } of files) await store.putObject(BUCKET, key, file.body);
    [browser, platform] = await Promise.all([launchBrowser(), startPlatform({ CONNECTIONS_ALLOW_PRIVATE_HOSTS: 'true' })]);
    gateway = platform.gateway.url;
    admin = await platform.token({ sub: 'admin' }, 3600);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    const store = stackS3Client();
    for (const { key } of files) await store.removeObject(BUCKET, key).catch(() => undefined);
    await store.removeBucket(BUCKET).catch(() => undefined);
  });

  it('creates a tested connection, syncs it, follows the run to its imported upload and reads every file', async () => {
    const page = await browser.newPage();
    await page.goto(await signInLink('admin'));
    await page.getByRole('link', { name: 'Connections', exact: true }).click();
    const empty = page.locator('[data-testid="empty-state"]', { hasText: 'No connections yet' });
    await empty.waitFor();
    expect(await empty.textContent()).toContain('reads the billing exports your cloud writes');
    await expectAccessible(page, 'connections: empty');
    await screenshot(page, '01-empty');

    await page.getByRole('button', { name: 'New connection' }).click();
    await fillForm(page, S3_ACCESS_KEY, S3_SECRET_KEY, 'FOCUS bucket');
    await page.getByLabel('Every few minutes or hours').check();
    await page.fill('#connection-interval', '60');

    // the test: what the API's own test finds, before anything is saved
    const expected = (
      await api()
        .post(`${API}/connections/test`)
        .set('corelite-token', admin)
        .send(settings(S3_ACCESS_KEY, S3_SECRET_KEY, 'x'))
        .expect(200)
    ).body;
    expect(expected).toMatchObject({
      ok: true,
      location: `s3://${BUCKET}`,
      objects: 2,
      layoutDetected: 'focus-files',
      billingPeriods: ['2024-09'],
      importable: 1,
    });
    await page.locator('[data-testid="connection-form"]').getByRole('button', { name: 'Test', exact: true }).click();
    const check = page.locator('[data-testid="check-result"][data-ok="true"]');
    await check.waitFor();
    expect(await check.locator('[data-testid="check-summary"]').textContent()).toBe(
      `2 objects in s3://${BUCKET}, laid out as Plain FOCUS files; 1 delivery to import (2024-09).`,
    );
    expect((await api().get(`${API}/connections`).set('corelite-token', admin).expect(200)).body.items).toEqual([]);
    await expectAccessible(page, 'connections: form tested');
    await screenshot(page, '02-form-tested');

    await page.getByRole('button', { name: 'Create connection' }).click();
    const row = page.locator('tr[data-connection="FOCUS bucket"]');
    await row.waitFor();
    const [created] = (await api().get(`${API}/connections`).set('corelite-token', admin).expect(200)).body.items;
    expect(created).toMatchObject({ name: 'FOCUS bucket', type: 's3', layout: 'focus-files', schedule: { intervalMinutes: 60 } });
    // the secret is never answered (s3rver's secret is its access key id, so the page is checked for the field, not the value)
    expect(created.credentials).toEqual({ kind: 'access-key', accessKeyId: S3_ACCESS_KEY });
    expect(JSON.stringify(created)).not.toContain('secretAccessKey');
    expect(await row.textContent()).toContain(`s3://${BUCKET}/focus/`);
    expect(await row.locator(`[data-testid="schedule-${created.id}"]`).textContent()).toBe('every hour');
    expect(await row.textContent()).toContain('next ');
    expect(await row.textContent()).toContain('never');
    expect(await page.locator('input[type="password"]').count()).toBe(0);

    // sync from the list: the run is shown and followed until its upload is imported
    await row.getByRole('button', { name: 'Sync now' }).click();
    const detail = page.locator('[data-testid="run-detail"]');
    await page.locator('[data-testid="run-detail"][data-status="succeeded"]').waitFor({ timeout: 60_000 });
    const imports = detail.locator('[data-testid="run-imports"] tbody tr');
    // the upload's own import is followed too, until it leaves `importing`
    await eventually(async () => expect(await imports.first().getAttribute('data-status')).toMatch(/^imported/), 60_000, 500);
    const runId = await detail.getAttribute('data-run');
    const run = (await api().get(`${API}/connections/${created.id}/runs/${runId}`).set('corelite-token', admin).expect(200)).body;
    expect(run).toMatchObject({ status: 'succeeded', found: 2, imported: 2, skipped: 0, rejected: 0 });
    expect(run.imports).toEqual([expect.objectContaining({ billingPeriod: '2024-09', files: 2 })]);
    expect(await imports.count()).toBe(1);
    expect(await imports.first().getAttribute('data-upload')).toBe(run.imports[0].uploadId);
    expect(await imports.first().getAttribute('data-status')).toBe(run.imports[0].uploadStatus);
    expect(await detail.locator('[data-testid="run-counts"]').textContent()).toBe('found 2 · imported 2 · skipped 0 · rejected 0');
    const upload = (await api().get(`${API}/focus/uploads/${run.imports[0].uploadId}`).set('corelite-token', admin).expect(200)).body;
    expect(upload.status).toBe(run.imports[0].uploadStatus);
    // the status with the conformance report, so that a failure says why
    expect({ status: upload.status, conformance: upload.conformance }).toMatchObject({ status: 'imported' });
    expect(upload.rowsWritten).toBe(files.reduce((sum, { file }) => sum + file.sums.rows, 0));

    // the per-file table: every file with its size and outcome, filtered by outcome
    const table = detail.locator('[data-testid="run-files"]');
    expect((await attributesOf(table.locator('tbody tr'), 'data-key')).sort()).toEqual(files.map(({ key }) => key));
    for (const { key, file } of files) {
      const cells = table.locator(`tbody tr[data-key="${key}"] td`);
      expect(await cells.nth(1).textContent()).toBe(bytes(file.body.length));
      expect(await cells.nth(2).textContent()).toBe('imported');
      expect(await cells.nth(3).textContent()).toBe('2024-09');
    }
    await detail.getByRole('button', { name: 'Rejected (0)' }).click();
    await detail.locator('[data-testid="empty-state"]', { hasText: 'No rejected files' }).waitFor();
    await detail.getByRole('button', { name: 'Imported (2)' }).click();
    await eventually(async () => expect(await table.locator('tbody tr[data-outcome="imported"]').count()).toBe(2));
    await expectAccessible(page, 'connections: run');
    await screenshot(page, '03-run');

    // the list shows the last sync; a second sync skips the unchanged delivery; the history is newest first
    await eventually(async () => expect(await row.textContent()).toContain('found 2 · imported 2 · skipped 0 · rejected 0'));
    await row.getByRole('button', { name: 'Sync now' }).click();
    await eventually(async () => expect(await detail.getAttribute('data-run')).not.toBe(runId), 10_000);
    await page.locator('[data-testid="run-detail"][data-status="succeeded"]').waitFor({ timeout: 60_000 });
    expect(await detail.locator('[data-testid="run-counts"]').textContent()).toBe('found 2 · imported 0 · skipped 2 · rejected 0');
    await detail.locator('[data-testid="run-imports-none"]').waitFor();
    await detail.getByRole('button', { name: 'Skipped (2)' }).click();
    expect(await table.locator('tbody tr td:nth-child(5)').allTextContents()).toEqual([
      expect.stringContaining('unchanged'),
      expect.stringContaining('unchanged'),
    ]);
    const history = (await api().get(`${API}/connections/${created.id}/runs`).set('corelite-token', admin).expect(200)).body;
    expect(history.items).toHaveLength(2);
    const runs = page.locator('[data-testid="run-list"] tbody tr');
    await eventually(async () =>
      expect(await attributesOf(runs, 'data-run')).toEqual(history.items.map((item: { runId: string }) => item.runId)),
    );
    expect(history.items[1].runId).toBe(runId);

    // the older run opens from the history
    await runs.nth(1).getByRole('button').click();
    await page.locator(`[data-testid="run-detail"][data-run="${runId}"]`).waitFor();
    await screenshot(page, '04-history');

    // edit: the credentials are kept unless replaced, the stored settings tested, a cron schedule in words with its zone
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.locator('[data-testid="credentials-kept"]').waitFor();
    expect(await page.inputValue('#connection-secret-key')).toBe('');
    expect(await page.inputValue('#connection-access-key')).toBe(S3_ACCESS_KEY);
    await page.locator('[data-testid="connection-form"]').getByRole('button', { name: 'Test stored settings' }).click();
    await page.locator('[data-testid="check-result"][data-ok="true"]').waitFor();
    await page.getByLabel('On a cron schedule').check();
    await page.fill('#connection-cron', '30 7 * * 1');
    await page.fill('#connection-timezone', 'Europe/Paris');
    await page.getByRole('button', { name: 'Save connection' }).click();
    await eventually(async () =>
      expect(await row.locator(`[data-testid="schedule-${created.id}"]`).textContent()).toBe('every Monday at 07:30 (Europe/Paris)'),
    );
    const edited = (await api().get(`${API}/connections/${created.id}`).set('corelite-token', admin).expect(200)).body;
    expect(edited.schedule).toEqual({ cron: '30 7 * * 1', timezone: 'Europe/Paris' });
    expect(edited.credentials).toEqual({ kind: 'access-key', accessKeyId: S3_ACCESS_KEY });

    // disable: the schedule pauses
    await row.getByRole('button', { name: 'Disable' }).click();
    await eventually(async () => expect(await row.textContent()).toContain('paused'));
    expect((await api().get(`${API}/connections/${created.id}`).set('corelite-token', admin).expect(200)).body).toMatchObject({
      enabled: false,
      nextSyncAt: null,
    });
    await row.getByRole('button', { name: 'Enable' }).click();
    await eventually(async () => expect(await row.textContent()).toContain('next '));

    // delete, asked once more: the list is empty again, the upload its sync made stays
    await row.locator('summary', { hasText: 'Delete' }).click();
    await row.getByRole('button', { name: 'Delete FOCUS bucket' }).click();
    await page.locator('[data-testid="empty-state"]', { hasText: 'No connections yet' }).waitFor();
    expect((await api().get(`${API}/connections`).set('corelite-token', admin).expect(200)).body.items).toEqual([]);
    await api().get(`${API}/focus/uploads/${run.imports[0].uploadId}`).set('corelite-token', admin).expect(200);
    await page.context().close();
  }, 180_000);

  // s3rver checks the access key id but not V4 signatures (minio signs V4), so a wrong secret alone
  // would pass there: the keys are both wrong, which s3rver and MinIO refuse alike
  it('shows why a connection with wrong credentials does not work, and saves nothing', async () => {
    const page = await browser.newPage();
    await page.goto(await signInLink('admin'));
    await page.getByRole('link', { name: 'Connections', exact: true }).click();
    await page.getByRole('button', { name: 'New connection' }).click();
    await fillForm(page, WRONG_KEY, `${S3_SECRET_KEY}-wrong`, 'Wrong key');

    const expected = (
      await api()
        .post(`${API}/connections/test`)
        .set('corelite-token', admin)
        .send(settings(WRONG_KEY, `${S3_SECRET_KEY}-wrong`, 'x'))
        .expect(200)
    ).body;
    expect(expected.ok).toBe(false);
    expect(expected.problem).toContain('InvalidAccessKeyId');
    await page.locator('[data-testid="connection-form"]').getByRole('button', { name: 'Test', exact: true }).click();
    const check = page.locator('[data-testid="check-result"][data-ok="false"]');
    await check.waitFor();
    expect(await check.locator('[data-testid="check-problem"]').textContent()).toBe(expected.problem);

    await page.getByRole('button', { name: 'Create connection' }).click();
    const problem = page.locator('[data-testid="connection-form"] [role="alert"]');
    await problem.waitFor();
    expect(await problem.textContent()).toContain(expected.problem);
    expect(await problem.textContent()).toContain('CONNECTION_TEST_FAILED');
    const names = (await api().get(`${API}/connections`).set('corelite-token', admin).expect(200)).body.items.map(
      (item: { name: string }) => item.name,
    );
    expect(names).not.toContain('Wrong key');
    await expectAccessible(page, 'connections: wrong credentials');
    await screenshot(page, '05-wrong-credentials');
    await page.context().close();
  }, 60_000);

  it('keeps Connections from members: not in their navigation, the page says so, the API refuses', async () => {
    const { cora } = await teamMembers(platform, { code: 'CONNECTIONS-VIEW' }, ['cora']);
    const page = await browser.newPage();
    await page.goto(`${gateway}/#token=${cora}`);
    await page.waitForSelector('[data-testid="user-id"]');
    expect(await page.getByRole('link', { name: 'Connections', exact: true }).count()).toBe(0);
    await page.goto(`${gateway}/connections`);
    await page.locator('[data-testid="empty-state"]', { hasText: 'Connections are for System Admins' }).waitFor();
    await api().get(`${API}/connections`).set('corelite-token', cora).expect(403);
    await page.context().close();
  }, 60_000);
});
