import request from 'supertest';
import { validGpd, validRows } from '../support/gpd-fixtures';
import { uploadGpd, waitForJob } from '../support/ingest';
import { eventually, Platform, startPlatform } from '../support/platform';
import { freePort, ServiceProcess, startServiceProcess } from '../support/service-process';

/**
 * A job interrupted by killing the process (SIGKILL: no shutdown hook, no ack) is redelivered to
 * the next process once its ack deadline passes, and finishes without duplicate rows.
 */
describe('costasset: a job survives a killed process', () => {
  let platform: Platform;
  let worker: ServiceProcess | undefined;
  let workerUrl: string;
  const workers: ServiceProcess[] = [];
  /** The JSON log lines of every worker, in the order they ran. */
  const logs = () => workers.flatMap((started) => started.logs);

  const startWorker = async (env: NodeJS.ProcessEnv, instance: string): Promise<ServiceProcess> => {
    const started = await startServiceProcess('costasset', env, instance, Number(new URL(workerUrl).port));
    workers.push(started);
    return started;
  };

  beforeAll(async () => {
    // The in-process costasset of the platform never takes jobs here: its queue consumer is the
    // same durable consumer, so it is closed; the child processes do the work.
    platform = await startPlatform({ JOBS_ACK_WAIT_MS: '3000', GPD_BATCH_SIZE: '500' });
    await platform.costasset.app.close();
    workerUrl = `http://127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    await worker?.kill();
    await platform.authz.app.close();
  });

  it('finishes after SIGKILL and a restart, with every row exactly once', async () => {
    const env = { ...platform.env, JOBS_ACK_WAIT_MS: '3000', GPD_BATCH_SIZE: '500' };
    worker = await startWorker(env, 'worker-1');
    const admin = await platform.token({ sub: 'admin' });
    const asPlatform = { ...platform, costasset: { ...platform.costasset, url: workerUrl } };
    const refId = await uploadGpd(asPlatform, admin, 'aws', await validGpd({ rows: validRows(20_000), withAssets: false }));
    const enrich = await request(workerUrl)
      .post('/api/costasset/v1/gpd/enrich')
      .set('corelite-token', admin)
      .send({ GPDUploadRefId: [refId], provider: ['aws'], retry: 'false' })
      .expect(200);
    const jobId = enrich.body.jobs[0].jobId;

    // kill it while it writes: some batches are in, the job is running
    await eventually(
      async () => {
        const job = (await request(workerUrl).get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200)).body;
        expect(job.status).toBe('running');
        expect(job.progress.done).toBeGreaterThan(0);
      },
      30_000,
      20,
    );
    await worker.kill();

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
      const page: request.Response = await request(workerUrl)
        .get('/api/costasset/v1/costLineItems')
        .query({ limit: 1000, ...(cursor ? { cursor } : {}) })
        .set('corelite-token', admin)
        .expect(200);
      for (const item of page.body.items) ids.add(`${item.resourceId}|${item.billingAccountId}`);
      count += page.body.items.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(count).toBe(20_000);
    expect(ids.size).toBe(20_000);

    // the logs tell which instance ran which attempt
    const jobLines = logs()
      .filter((line) => line.jobId === jobId)
      .map(({ msg, attempt, instance, type, tenantId }) => ({ msg, attempt, instance, type, tenantId }));
    const base = { type: 'gpd.enrich', tenantId: 'default' };
    expect(jobLines[0]).toEqual({ ...base, msg: 'job started', attempt: 1, instance: 'worker-1' });
    expect(jobLines).toContainEqual({ ...base, msg: 'job started', attempt: job.attempts, instance: 'worker-2' });
    expect(jobLines[jobLines.length - 1]).toEqual({ ...base, msg: 'job succeeded', attempt: job.attempts, instance: 'worker-2' });
  });
});
