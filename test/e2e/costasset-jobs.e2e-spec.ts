import request from 'supertest';
import { CostLineItemRepository } from '../../apps/costasset/src/line-items/line-items.repository';
import { validGpd, validRows } from '../support/gpd-fixtures';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const GPD = '/api/costasset/v1/gpd';
const JOBS = '/api/costasset/v1/jobs';
type Job = {
  jobId: string;
  status: string;
  attempts: number;
  error?: string;
  type: string;
  progress: { done: number; total: number; percent: number };
};

/** Jobs on the JetStream work queue: retries, dead letters, termination, and a restart mid-job, never duplicating rows. */
describe('costasset jobs', () => {
  let platform: Platform;
  let admin: string;
  const api = () => request(platform.costasset.url);
  const settings = { GPD_BATCH_SIZE: '5', JOBS_RETRY_DELAY_MS: '100', JOBS_ACK_WAIT_MS: '2000', BOOTSTRAP_TENANTS: 'default,elsewhere' };

  const job = async (jobId: string, token = admin): Promise<Job> =>
    (await api().get(`${JOBS}/${jobId}`).set('corelite-token', token).expect(200)).body;
  const until = async (jobId: string, statuses: string[], timeoutMs = 30_000) => {
    let body = {} as Job;
    await eventually(
      async () => {
        body = await job(jobId);
        expect(statuses).toContain(body.status);
      },
      timeoutMs,
      100,
    );
    return body;
  };
  const start = async (rows: number) => {
    const submitted = (await api().post(GPD).query({ providername: 'aws' }).set('corelite-token', admin).expect(202)).body;
    expect(
      (await fetch(submitted.uploadUrl, { method: 'PUT', body: await validGpd({ rows: validRows(rows), withAssets: false }) })).status,
    ).toBe(200);
    const started = await api()
      .post(`${GPD}/enrich`)
      .set('corelite-token', admin)
      .send({ GPDUploadRefId: [submitted.GPDUploadRefId], provider: [], retry: 'false' })
      .expect(200);
    return { refId: submitted.GPDUploadRefId as string, jobId: started.body.jobs[0].jobId as string };
  };
  const rowsOf = async (refId: string) => {
    const res = await api()
      .get('/api/costasset/v1/costLineItems')
      .query({ uploadRefId: refId, limit: 1000 })
      .set('corelite-token', admin)
      .expect(200);
    return res.body.items as { resourceId: string }[];
  };
  const uploadOf = async (refId: string) => {
    const res = await api().get(GPD).query({ providername: 'aws' }).set('corelite-token', admin).expect(200);
    return res.body.find((u: { GPDUploadRefId: string }) => u.GPDUploadRefId === refId);
  };
  const repository = () => platform.costasset.app.get(CostLineItemRepository);
  /**
   * Stops the service without waiting for its running job (as a crash would) and starts a fresh one on the same database and NATS
   * namespace.
   */
  const restart = async () => {
    const { MONGODB_URI, NATS_NAMESPACE } = platform.env;
    await platform.close({ keepDatabase: true });
    platform = await startPlatform({ ...settings, MONGODB_URI, NATS_NAMESPACE });
  };

  beforeAll(async () => {
    platform = await startPlatform(settings);
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());
  afterEach(() => jest.restoreAllMocks());

  it('re-runs a job that crashed after writing half its rows, ending with exactly the right rows', async () => {
    const original = repository().insertBatch.bind(repository());
    let calls = 0;
    jest.spyOn(repository(), 'insertBatch').mockImplementation(async (batch) => {
      calls++;
      if (calls === 3) throw new Error('simulated crash after two batches');
      return original(batch);
    });
    const { refId, jobId } = await start(23);
    const done = await until(jobId, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, progress: { percent: 100 } });
    expect(calls).toBe(3 + 5);
    const rows = await rowsOf(refId);
    expect(rows).toHaveLength(23);
    expect(new Set(rows.map((row) => row.resourceId)).size).toBe(23);
    expect(await uploadOf(refId)).toMatchObject({ status: 'enriched', rowsWritten: 23 });
  });

  it('fails a job after three attempts (dead letter) with nothing written, and a retry then succeeds', async () => {
    const original = repository().insertBatch.bind(repository());
    const spy = jest.spyOn(repository(), 'insertBatch').mockImplementation(async (batch) => {
      await original(batch);
      throw new Error('database write refused');
    });
    const { refId, jobId } = await start(12);
    const failed = await until(jobId, ['failed', 'succeeded']);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, error: 'database write refused' });
    // the job is marked failed first, then its handler's onFailed removes the rows and fails the upload
    await eventually(async () => {
      expect(await rowsOf(refId)).toHaveLength(0);
      expect(await uploadOf(refId)).toMatchObject({ status: 'failed', errors: [{ file: '', line: 0, reason: 'database write refused' }] });
    });

    spy.mockRestore();
    await api().post(`${GPD}/retry`).set('corelite-token', admin).send({ jobId }).expect(200);
    expect(await until(jobId, ['succeeded', 'failed'])).toMatchObject({ status: 'succeeded', attempts: 4 });
    expect(await rowsOf(refId)).toHaveLength(12);
  });

  it('terminates a running job between batches, keeping no rows', async () => {
    const original = repository().insertBatch.bind(repository());
    jest.spyOn(repository(), 'insertBatch').mockImplementation(async (batch) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return original(batch);
    });
    const { refId, jobId } = await start(200);
    await until(jobId, ['running']);
    await eventually(async () => expect((await job(jobId)).progress.done).toBeGreaterThan(0));
    const terminated = await api().post(`${JOBS}/${jobId}/terminate`).set('corelite-token', admin).expect(200);
    expect(terminated.body.jobId).toBe(jobId);
    expect(await until(jobId, ['terminated', 'succeeded', 'failed'])).toMatchObject({ status: 'terminated' });
    // the clean-up runs once the job is ended (docs/decisions.md, Jobs): its effects follow within moments
    await eventually(async () => {
      expect(await rowsOf(refId)).toHaveLength(0);
      expect(await uploadOf(refId)).toMatchObject({
        status: 'failed',
        errors: [expect.objectContaining({ reason: 'enrichment terminated on request' })],
      });
    });
    const again = await api().post(`${JOBS}/${jobId}/terminate`).set('corelite-token', admin);
    expect(again.body).toMatchObject({ status: 400, code: 'JOB_NOT_RUNNING' });
  });

  it("lists jobs by type and status in pages, and hides unknown, foreign or other users' jobs", async () => {
    const all = await api().get(JOBS).query({ type: 'gpd.enrich', limit: 2 }).set('corelite-token', admin).expect(200);
    expect(all.body.items).toHaveLength(2);
    expect(all.body.nextCursor).toEqual(expect.any(String));
    const rest = await api()
      .get(JOBS)
      .query({ type: 'gpd.enrich', limit: 2, cursor: all.body.nextCursor })
      .set('corelite-token', admin)
      .expect(200);
    expect(rest.body.items).toHaveLength(1);
    const succeeded = await api().get(JOBS).query({ type: 'gpd.enrich', status: 'succeeded' }).set('corelite-token', admin).expect(200);
    expect(succeeded.body.items.map((j: Job) => j.status)).toEqual(['succeeded', 'succeeded']);
    expect(succeeded.body.items[0]).not.toHaveProperty('tenantId');
    expect((await api().get(JOBS).query({ type: 'other' }).set('corelite-token', admin).expect(200)).body.items).toEqual([]);
    expect((await api().get(JOBS).query({ status: 'weird' }).set('corelite-token', admin)).status).toBe(400);

    // the admin's jobs, for a System Admin of another tenant and for a member of this one, do not exist
    const stranger = await platform.token({ sub: 'admin', tid: 'elsewhere' });
    const { bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']);
    for (const token of [stranger, bob]) {
      expectProblem(await api().get(`${JOBS}/${all.body.items[0].jobId}`).set('corelite-token', token), 404, 'JOB_NOT_FOUND');
      expectProblem(await api().post(`${JOBS}/${all.body.items[0].jobId}/terminate`).set('corelite-token', token), 404, 'JOB_NOT_FOUND');
      expect((await api().get(JOBS).set('corelite-token', token).expect(200)).body.items).toEqual([]);
    }
    expectProblem(
      await api()
        .get(JOBS)
        .set('corelite-token', await platform.token({ sub: 'loner' })),
      403,
      'TEAM_REQUIRED',
    );
    expect((await api().get(`${JOBS}/not-a-uuid`).set('corelite-token', admin)).body).toMatchObject({ status: 404, code: 'JOB_NOT_FOUND' });
    expect((await api().get(`${JOBS}/00000000-0000-4000-8000-000000000000`).set('corelite-token', admin)).body).toMatchObject({
      status: 404,
      code: 'JOB_NOT_FOUND',
    });
  });

  it('finishes a job interrupted by a stopped process after a restart, without duplicate rows', async () => {
    const original = repository().insertBatch.bind(repository());
    let calls = 0;
    jest.spyOn(repository(), 'insertBatch').mockImplementation(async (batch) => {
      calls++;
      // the "process" hangs after its first batch: no ack, no heartbeat
      if (calls === 2) await new Promise<void>(() => undefined);
      return original(batch);
    });
    const { refId, jobId } = await start(17);
    await eventually(async () => expect(calls).toBe(2));
    // the first batch is stored, and hidden from readers until the import is done
    expect(await repository().count('default', { uploadRefId: refId })).toBe(5);
    expect(await rowsOf(refId)).toHaveLength(0);

    await restart();

    const done = await until(jobId, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
    const rows = await rowsOf(refId);
    expect(rows).toHaveLength(17);
    expect(new Set(rows.map((row) => row.resourceId)).size).toBe(17);
  });

  it('fails a job whose last attempt was interrupted too, instead of leaving it running', async () => {
    jest.spyOn(CostLineItemRepository.prototype, 'insertBatch').mockImplementation(() => new Promise<number>(() => undefined));
    const { refId, jobId } = await start(7);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await eventually(async () => expect((await job(jobId)).attempts).toBe(attempt), 20_000);
      await restart();
    }
    const failed = await until(jobId, ['failed', 'succeeded']);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, error: 'interrupted 3 times' });
    expect(await rowsOf(refId)).toHaveLength(0);
    expect(await uploadOf(refId)).toMatchObject({ status: 'failed', errors: [expect.objectContaining({ reason: 'interrupted 3 times' })] });
  }, 120_000);
});
