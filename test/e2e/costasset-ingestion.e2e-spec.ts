import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { extensionZip, rawZip } from '../support/extension-fixtures';
import { costCsv, metadataYml, validGpd, validRows, zipOf } from '../support/gpd-fixtures';
import { uploadGpd, waitForJob } from '../support/ingest';
import { Platform, startPlatform } from '../support/platform';

// The object store outlives each run's database: a tenant of its own keeps this run's keys apart.
const TENANT = `ingest-${randomUUID().slice(0, 8)}`;
const V1 = '/api/costasset/v1/enrichmentController';

/** The ingestion controller: v1 ingestion, retry, terminate, and the consolidated v2 chain. */
describe('costasset ingestion controller', () => {
  let platform: Platform;
  let admin: string;

  const post = (path: string, body: object = {}, token = admin) =>
    request(platform.costasset.url).post(path).set('corelite-token', token).send(body);
  const count = async (provider: string) =>
    (
      await request(platform.costasset.url)
        .get('/api/costasset/v1/costLineItems')
        .query({ providerName: provider, limit: 1000 })
        .set('corelite-token', admin)
        .expect(200)
    ).body.items.length;

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: TENANT });
    admin = await platform.token({ sub: 'admin', tid: TENANT });
  });
  afterAll(() => platform.close());

  it('enriches every uploaded file, skips the ones not in the store yet, and retries failed ones on request', async () => {
    const ready = await uploadGpd(platform, admin, 'aws', await validGpd({ rows: validRows(5) }));
    const broken = await uploadGpd(
      platform,
      admin,
      'aws',
      await zipOf({
        'provider_metadata.yml': metadataYml('aws'),
        '202410/222/C_222_x.csv': costCsv('202410', '999', validRows(2)).split('\n')[0] + '\n',
        '202410/333/': null,
      }),
    );
    const waiting = (
      await request(platform.costasset.url)
        .post('/api/costasset/v1/gpd')
        .query({ providername: 'aws' })
        .set('corelite-token', admin)
        .expect(202)
    ).body.GPDUploadRefId;

    const started = await post(`${V1}/ingestion`).expect(200);
    expect(started.body.status).toBe('started');
    expect(started.body.jobs.map((job: { GPDUploadRefId: string }) => job.GPDUploadRefId).sort()).toEqual([ready, broken].sort());
    expect(started.body.skipped).toEqual([{ GPDUploadRefId: waiting, code: 'GPD_FILE_NOT_READY', reason: expect.any(String) }]);
    const byRef = Object.fromEntries(
      started.body.jobs.map((job: { GPDUploadRefId: string; jobId: string }) => [job.GPDUploadRefId, job.jobId]),
    );
    expect((await waitForJob(platform, admin, byRef[ready])).status).toBe('succeeded');
    expect((await waitForJob(platform, admin, byRef[broken])).status).toBe('failed');
    expect(await count('aws')).toBe(5);

    const invalid = await post(`${V1}/ingestion/retry`, { jobId: byRef[ready] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('INVALID_JOB_ID');
    const retried = await post(`${V1}/ingestion/retry`).expect(200);
    expect(retried.body).toEqual({ status: 'accepted', jobs: [byRef[broken]] });
    expect((await waitForJob(platform, admin, byRef[broken])).status).toBe('failed');
  });

  it('terminates running ingestion jobs and answers what it terminated', async () => {
    await post(`${V1}/jobs/terminate`).expect(200, { terminated: [] });
    expect((await post(`${V1}/jobs/terminate`, { jobId: randomUUID() })).status).toBe(404);
    const refId = await uploadGpd(platform, admin, 'gcp', await validGpd({ provider: 'gcp', rows: validRows(3) }));
    const started = await post(`${V1}/ingestion`, { providers: ['gcp'] }).expect(200);
    const jobId = started.body.jobs.find((job: { GPDUploadRefId: string }) => job.GPDUploadRefId === refId).jobId;
    const terminated = await post(`${V1}/jobs/terminate`, { jobId });
    const final = await waitForJob(platform, admin, jobId);
    if (terminated.status === 200) {
      expect(terminated.body).toEqual({ terminated: [jobId] });
      expect(final.status).toBe('terminated');
      expect(await count('gcp')).toBe(0);
    } else {
      // the job finished before the request arrived
      expect(terminated.body.code).toBe('JOB_NOT_RUNNING');
      expect(final.status).toBe('succeeded');
    }
  });

  it('chains transformation and enrichment in one request (v2)', async () => {
    const presign = async (route: string, Filename: string) =>
      (
        await request(platform.costasset.url)
          .post(`/api/costasset/extensions/${route}`)
          .query({ Filename, ProviderCode: 'acme' })
          .set('corelite-token', admin)
          .expect(200)
      ).body.preSignedUrl;
    expect(
      (await fetch(await presign('ObjectStoreExtensionRepo', 'acme-ext.zip'), { method: 'PUT', body: await extensionZip() })).status,
    ).toBe(200);
    expect((await fetch(await presign('ObjectStoreInputHandler', 'acme-raw.zip'), { method: 'PUT', body: await rawZip() })).status).toBe(
      200,
    );
    await request(platform.costasset.url)
      .post('/api/costasset/extensions/notify/ObjectStoreInputHandler')
      .query({ Filename: 'acme-raw.zip', ProviderCode: 'acme' })
      .set('corelite-token', admin)
      .expect(200);

    const started = await post('/api/costasset/v2/enrichmentController/ingestion', { vars: { providerCode: 'acme' } }).expect(200);
    expect(started.body).toMatchObject({ status: 'started', jobId: expect.any(String) });
    const flow = await waitForJob(platform, admin, started.body.jobId);
    expect(flow.status).toBe('succeeded');
    expect(flow.result).toMatchObject({ enrichmentJobId: expect.any(String), GPDUploadRefId: started.body.jobId });
    const enrichment = await waitForJob(platform, admin, String(flow.result?.enrichmentJobId));
    expect(enrichment.status).toBe('succeeded');
    expect(Number(enrichment.result?.rowsWritten)).toBeGreaterThan(0);
    expect(await count(String(flow.result?.providerName))).toBe(Number(enrichment.result?.rowsWritten));
  });

  it('is for System Admins', async () => {
    const member = await platform.token({ sub: 'bob', tid: TENANT });
    expect((await post(`${V1}/ingestion`, {}, member)).status).toBe(403);
    expect((await post('/api/costasset/v2/enrichmentController/ingestion', { vars: { providerCode: 'acme' } }, member)).status).toBe(403);
  });
});
