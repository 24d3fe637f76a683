import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import request from 'supertest';
import { validGpd, validRows } from '../support/gpd-fixtures';
import { uploadGpd, waitForJob } from '../support/ingest';
import { eventually, Platform, startPlatform } from '../support/platform';

const root = join(__dirname, '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A job interrupted by killing the process (SIGKILL: no shutdown hook, no ack) is redelivered to
 * the next process once its ack deadline passes, and finishes without duplicate rows.
 */
describe('costasset: a job survives a killed process', () => {
  let platform: Platform;
  let worker: ChildProcess | undefined;
  let workerUrl: string;
  /** The JSON log lines of every worker. */
  const logs: Record<string, unknown>[] = [];

  const startWorker = async (env: NodeJS.ProcessEnv, instance: string): Promise<ChildProcess> => {
    const child = spawn(process.execPath, ['-r', join(root, 'test/support/swc-register.js'), join(root, 'apps/costasset/src/main.ts')], {
      cwd: root,
      env: { ...env, INSTANCE_ID: instance },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
    });
    await eventually(async () => {
      await request(workerUrl).get('/health/ready').expect(200);
    }, 60_000, 250);
    return child;
  };

  beforeAll(async () => {
    // The in-process costasset of the platform never takes jobs here: its queue consumer is the
    // same durable consumer, so it is closed; the child processes do the work.
    platform = await startPlatform({ JOBS_ACK_WAIT_MS: '3000', GPD_BATCH_SIZE: '500' });
    await platform.costasset.app.close();
    workerUrl = `http://127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await platform.authz.app.close();
  });

  it('finishes after SIGKILL and a restart, with every row exactly once', async () => {
    const env = { ...platform.env, COSTASSET_PORT: new URL(workerUrl).port, LOG_LEVEL: 'info', JOBS_ACK_WAIT_MS: '3000', GPD_BATCH_SIZE: '500' };
    worker = await startWorker(env, 'worker-1');
    const admin = await platform.token({ sub: 'admin' });
    const asPlatform = { ...platform, costasset: { ...platform.costasset, url: workerUrl } };
    const refId = await uploadGpd(asPlatform, admin, 'aws', await validGpd({ rows: validRows(20_000), withAssets: false }));
    const enrich = await request(workerUrl).post('/api/costasset/v1/gpd/enrich').set('corelite-token', admin).send({ GPDUploadRefId: [refId], provider: ['aws'], retry: 'false' }).expect(200);
    const jobId = enrich.body.jobs[0].jobId;

    // kill it while it writes: some batches are in, the job is running
    await eventually(async () => {
      const job = (await request(workerUrl).get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200)).body;
      expect(job.status).toBe('running');
      expect(job.progress.done).toBeGreaterThan(0);
    }, 30_000, 20);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker?.once('exit', resolve));

    worker = await startWorker(env, 'worker-2');
    const done = await waitForJob(asPlatform, admin, jobId, 60_000);
    expect(done.status).toBe('succeeded');
    const job = (await request(workerUrl).get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200)).body;
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(done.result).toMatchObject({ rowsWritten: 20_000, rowsRejected: 0 });
    let count = 0;
    const ids = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: request.Response = await request(workerUrl).get('/api/costasset/v1/costLineItems').query({ limit: 1000, ...(cursor ? { cursor } : {}) }).set('corelite-token', admin).expect(200);
      for (const item of page.body.items) ids.add(`${item.resourceId}|${item.billingAccountId}`);
      count += page.body.items.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(count).toBe(20_000);
    expect(ids.size).toBe(20_000);

    // the logs tell which instance ran which attempt
    const jobLines = logs.filter((line) => line.jobId === jobId).map(({ msg, attempt, instance, type, tenantId }) => ({ msg, attempt, instance, type, tenantId }));
    const base = { type: 'gpd.enrich', tenantId: 'default' };
    expect(jobLines[0]).toEqual({ ...base, msg: 'job started', attempt: 1, instance: 'worker-1' });
    expect(jobLines).toContainEqual({ ...base, msg: 'job started', attempt: job.attempts, instance: 'worker-2' });
    expect(jobLines[jobLines.length - 1]).toEqual({ ...base, msg: 'job succeeded', attempt: job.attempts, instance: 'worker-2' });
  });
});
