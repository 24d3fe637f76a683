import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'minio';
import request from 'supertest';
import { generateGpd } from '../../tools/gpd/generate';
import { costCsv, metadataYml, validGpd, validRows, zipOf } from '../support/gpd-fixtures';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { configValues } from '../support/config-values';

const GPD = '/api/costasset/v1/gpd';
const PERIOD = '202410';
const ACCOUNT = '111111111111';
const COST_FILE = `${PERIOD}/${ACCOUNT}/C_${ACCOUNT}_20241101T000000Z.csv`;

/** The whole GPD path over HTTP against the real stack (MongoDB, NATS JetStream, object store). */
describe('costasset GPD uploads and enrichment', () => {
  let platform: Platform;
  let admin: string;
  let stranger: string;
  const api = () => request(platform.costasset.url);

  const submit = async (token = admin, provider = 'aws', fileName?: string) => {
    const res = await api()
      .post(GPD)
      .query({ providername: provider, ...(fileName ? { fileName } : {}) })
      .set('corelite-token', token)
      .expect(202);
    return res.body as { GPDUploadRefId: string; uploadUrl: string; expiresAt: string };
  };
  const put = async (url: string, body: Buffer) => {
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status).toBe(200);
  };
  const enrich = (refIds: string[], retry: 'true' | 'false' = 'false', token = admin) =>
    api()
      .post(`${GPD}/enrich`)
      .set('corelite-token', token)
      .send({ GPDUploadRefId: refIds, provider: ['aws'], retry });
  const job = async (jobId: string, token = admin) =>
    (await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', token).expect(200)).body;
  const finished = async (jobId: string) => {
    let body: { status: string } = { status: 'queued' };
    await eventually(
      async () => {
        body = await job(jobId);
        expect(['succeeded', 'completed_with_errors', 'failed', 'terminated']).toContain(body.status);
      },
      120_000,
      150,
    );
    return body as {
      status: string;
      error?: string;
      attempts: number;
      result: Record<string, unknown>;
      progress: { percent: number; unit: string };
    };
  };
  const upload = async (refId: string, provider = 'aws', token = admin) => {
    const res = await api().get(GPD).query({ providername: provider }).set('corelite-token', token).expect(200);
    type UploadRecord = Record<string, unknown> & { GPDUploadRefId: string; errors: { file: string; line: number; reason: string }[] };
    return (res.body as UploadRecord[]).find((record) => record.GPDUploadRefId === refId) as UploadRecord;
  };
  const lineItems = async (query: Record<string, string | number>, token = admin) => {
    const items: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await api()
        .get('/api/costasset/v1/costLineItems')
        .query({ ...query, limit: 1000, ...(cursor ? { cursor } : {}) })
        .set('corelite-token', token)
        .expect(200);
      items.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    return items;
  };
  /** Upload + enrich + wait; answers the ref id and the finished job. */
  const ingest = async (zip: Buffer) => {
    const { GPDUploadRefId, uploadUrl } = await submit();
    await put(uploadUrl, zip);
    const started = await enrich([GPDUploadRefId]).expect(200);
    const done = await finished(started.body.jobs[0].jobId);
    return { refId: GPDUploadRefId, jobId: started.body.jobs[0].jobId as string, job: done, uploadUrl };
  };

  beforeAll(async () => {
    platform = await startPlatform({
      GPD_BATCH_SIZE: '1000',
      GPD_MAX_FILE_BYTES: '1000000',
      JOBS_RETRY_DELAY_MS: '100',
      BOOTSTRAP_TENANTS: 'default,other-tenant',
    });
    admin = await platform.token({ sub: 'admin' });
    // the strongest caller of another tenant: its System Admin, for whom every record here does not exist
    stranger = await platform.token({ sub: 'admin', tid: 'other-tenant' });
    const config = configValues(platform, admin);
    await config('INSTANCE_CURRENCIES', ['EUR', 'USD']);
    await config('CURRENCY_EXCHANGE_RATES', { USD: 0.5 });
    await config('DEFAULT_CURRENCY', 'EUR');
    await api()
      .post('/api/costasset/v1/providermetadata/service_categories')
      .query({ providerName: 'aws' })
      .set('corelite-token', admin)
      .send([{ providerName: 'aws', assetType: 'AmazonEC2', serviceCategory: 'Compute' }])
      .expect(200);
    await api()
      .post('/api/costasset/v1/providermetadata/locations')
      .query({ providerName: 'aws' })
      .set('corelite-token', admin)
      .send([{ providerName: 'aws', providerRegionCode: 'us-east-1', region: 'Americas', location: 'N. Virginia', country: 'US' }])
      .expect(200);
  });
  afterAll(() => platform.close());

  it('uploads through the pre-signed URL, enriches, lists converted and mapped line items, and cleans up', async () => {
    const submitted = await submit(admin, 'aws', 'aws-202410.zip');
    expect(submitted).toEqual({
      GPDUploadRefId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      uploadUrl: expect.stringContaining(`tenants/default/gpd/${submitted.GPDUploadRefId}/aws-202410.zip`),
      expiresAt: expect.any(String),
    });
    expect(await upload(submitted.GPDUploadRefId)).toMatchObject({
      status: 'awaiting_upload',
      fileName: 'aws-202410.zip',
      providerName: 'aws',
      rowsRead: 0,
    });

    expectProblem(await enrich([submitted.GPDUploadRefId]), 400, 'GPD_FILE_NOT_READY');

    await put(submitted.uploadUrl, await validGpd({ rows: validRows(10) }));
    const started = await enrich([submitted.GPDUploadRefId]).expect(200);
    expect(started.body).toEqual({ status: 'started', jobs: [{ GPDUploadRefId: submitted.GPDUploadRefId, jobId: expect.any(String) }] });
    const jobId = started.body.jobs[0].jobId;
    const done = await finished(jobId);
    expect(done).toMatchObject({
      status: 'succeeded',
      type: 'gpd.enrich',
      attempts: 1,
      // enrichment counts the bytes of the CSV files read: their rows are only known at the end
      progress: { percent: 100, unit: 'bytes' },
      result: { rowsRead: 13, rowsWritten: 13, rowsRejected: 0, currency: 'EUR' },
    });

    const items = await lineItems({ uploadRefId: submitted.GPDUploadRefId });
    expect(items).toHaveLength(10);
    const compute = await lineItems({ uploadRefId: submitted.GPDUploadRefId, category: 'Compute' });
    expect(compute).toHaveLength(5);
    expect(compute[0]).toMatchObject({
      providerName: 'aws',
      billingAccountId: ACCOUNT,
      assetAccountId: `${ACCOUNT}-sub`,
      assetType: 'AmazonEC2',
      region: 'us-east-1',
      location: 'N. Virginia',
      country: 'US',
      locationRegion: 'Americas',
      period: PERIOD,
      billedCost: 10,
      billingCurrency: 'USD',
      cost: 5,
      currency: 'EUR',
      chargePeriodStart: '2024-10-01T00:00:00.000Z',
      tags: [
        { group: 'team', key: 'owner', value: 'alpha' },
        { group: 'default', key: 'env', value: 'prod' },
      ],
    });
    expect(compute[0]).not.toHaveProperty('tenantId');
    const storage = await lineItems({ uploadRefId: submitted.GPDUploadRefId, region: 'eu-west-1' });
    expect(storage.map((item) => item.category)).toEqual(Array(5).fill('Uncategorized'));
    expect(storage[0]).not.toHaveProperty('location');

    const page1 = await api()
      .get('/api/costasset/v1/costLineItems')
      .query({ uploadRefId: submitted.GPDUploadRefId, limit: 4 })
      .set('corelite-token', admin)
      .expect(200);
    expect(page1.body.items).toHaveLength(4);
    const page2 = await api()
      .get('/api/costasset/v1/costLineItems')
      .query({ uploadRefId: submitted.GPDUploadRefId, limit: 4, cursor: page1.body.nextCursor })
      .set('corelite-token', admin)
      .expect(200);
    expect(page2.body.items.map((i: { id: string }) => i.id)).not.toContain(page1.body.items[0].id);
    expectProblem(
      await api().get('/api/costasset/v1/costLineItems').query({ limit: 0 }).set('corelite-token', admin),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(
      await api().get('/api/costasset/v1/costLineItems').query({ period: '2024-10' }).set('corelite-token', admin),
      400,
      'VALIDATION_FAILED',
    );

    const assets = await api()
      .get('/api/costasset/v1/assets')
      .query({ uploadRefId: submitted.GPDUploadRefId })
      .set('corelite-token', admin)
      .expect(200);
    expect(assets.body.items).toHaveLength(2);
    expect(assets.body.items[0]).toMatchObject({
      resourceId: 'res-0',
      category: 'Compute',
      assetAccountId: `${ACCOUNT}-sub`,
      tags: [{ group: 'default', key: 'owner', value: 'x' }],
    });

    expect(await upload(submitted.GPDUploadRefId)).toMatchObject({
      status: 'enriched',
      jobId,
      rowsRead: 13,
      rowsWritten: 13,
      rowsRejected: 0,
      errors: [],
    });

    // re-enriching replaces the rows: same count, never duplicates
    expectProblem(await enrich([submitted.GPDUploadRefId], 'false'), 409, 'GPD_ALREADY_ENRICHED');
    const again = await enrich([submitted.GPDUploadRefId], 'true').expect(200);
    expect(again.body.jobs[0].jobId).not.toBe(jobId);
    expect((await finished(again.body.jobs[0].jobId)).status).toBe('succeeded');
    expect(await lineItems({ uploadRefId: submitted.GPDUploadRefId })).toHaveLength(10);

    const store = platform.costasset.app.get(Client);
    const key = `tenants/default/gpd/${submitted.GPDUploadRefId}/aws-202410.zip`;
    await expect(store.statObject(platform.env.S3_BUCKET ?? 'corelite', key)).resolves.toMatchObject({ size: expect.any(Number) });
    const cleaned = await api()
      .post(`${GPD}/cleanup`)
      .query({ providername: 'aws' })
      .set('corelite-token', admin)
      .send({ GPDUploadRefId: submitted.GPDUploadRefId })
      .expect(200);
    expect(cleaned.body).toEqual({
      status: 'cleaned',
      GPDUploadRefId: submitted.GPDUploadRefId,
      costLineItemsRemoved: 10,
      assetsRemoved: 2,
      utilizationRemoved: 1,
    });
    await expect(store.statObject(platform.env.S3_BUCKET ?? 'corelite', key)).rejects.toMatchObject({ code: 'NotFound' });
    expect(await lineItems({ uploadRefId: submitted.GPDUploadRefId })).toHaveLength(0);
    expect(await upload(submitted.GPDUploadRefId)).toMatchObject({ status: 'cleaned' });
    expectProblem(await enrich([submitted.GPDUploadRefId], 'true'), 404, 'GPD_UPLOAD_NOT_FOUND');
  });

  it('rejects bad rows with file, line and every reason, writes the rest, and ends completed_with_errors', async () => {
    const rows = [
      ...validRows(2),
      { start: '01/10/2024' },
      { billedCost: 'ten' },
      { currency: 'JPY' },
      { start: '2024-09-30T00:00:00Z' },
      { tags: '{"broken"' },
    ];
    const zip = await zipOf({ 'provider_metadata.yml': metadataYml(), [COST_FILE]: costCsv(PERIOD, ACCOUNT, rows) });
    const { refId, job } = await ingest(zip);
    expect(job).toMatchObject({ status: 'completed_with_errors', result: { rowsRead: 7, rowsWritten: 2, rowsRejected: 5 } });
    const record = await upload(refId);
    expect(record).toMatchObject({ status: 'enriched_with_errors', rowsRead: 7, rowsWritten: 2, rowsRejected: 5 });
    expect(record.conformance).toEqual({
      rules: expect.arrayContaining([
        {
          rule: 'DATE_INVALID',
          severity: 'error',
          count: 1,
          examples: [{ file: COST_FILE, line: 4, message: expect.stringContaining('01/10/2024') }],
        },
        { rule: 'NO_EXCHANGE_RATE', severity: 'error', count: 1, examples: [expect.objectContaining({ line: 6 })] },
      ]),
    });
    expect(record.errors).toEqual([
      { file: COST_FILE, line: 4, reason: expect.stringContaining('ChargePeriodStart "01/10/2024" is not an ISO 8601 date') },
      { file: COST_FILE, line: 5, reason: expect.stringContaining('BilledCost "ten" is not a decimal number') },
      { file: COST_FILE, line: 6, reason: 'no exchange rate from JPY to EUR' },
      { file: COST_FILE, line: 7, reason: expect.stringContaining('outside the period 202410') },
      { file: COST_FILE, line: 8, reason: expect.stringContaining('Tags') },
    ]);
    expect(await lineItems({ uploadRefId: refId })).toHaveLength(2);
  });

  it('fails a file none of whose rows can be written, keeping the report, and lists every problem of a row', async () => {
    const zip = await zipOf({
      'provider_metadata.yml': metadataYml(),
      [COST_FILE]: costCsv(PERIOD, ACCOUNT, [
        { billedCost: 'ten', currency: 'usd' },
        { start: '2024-10-01 00:00:00', billedCost: 'NULL' },
      ]),
    });
    const { refId, job } = await ingest(zip);
    expect(job).toMatchObject({ status: 'failed', error: 'no row could be written: 2 read, 2 rejected' });
    const record = await upload(refId);
    expect(record).toMatchObject({ status: 'failed', rowsRead: 2, rowsWritten: 0, rowsRejected: 2 });
    expect(record.errors).toEqual([
      { file: COST_FILE, line: 2, reason: 'BilledCost "ten" is not a decimal number; BillingCurrency "usd" is not an ISO 4217 code' },
      { file: COST_FILE, line: 3, reason: 'BilledCost is empty' },
    ]);
  });

  it.each([
    ['missing metadata', { [COST_FILE]: costCsv(PERIOD, ACCOUNT, validRows(3)) }, 'provider_metadata.yml'],
    [
      'an empty account folder',
      { 'provider_metadata.yml': metadataYml(), [COST_FILE]: costCsv(PERIOD, ACCOUNT, validRows(3)), [`${PERIOD}/222222222222/`]: null },
      'empty account folder',
    ],
    [
      'an unknown file',
      { 'provider_metadata.yml': metadataYml(), [COST_FILE]: costCsv(PERIOD, ACCOUNT, validRows(3)), 'README.txt': 'hi' },
      'unexpected file',
    ],
    [
      'a missing required column',
      {
        'provider_metadata.yml': metadataYml(),
        [COST_FILE]: costCsv(PERIOD, ACCOUNT, validRows(3)),
        [`${PERIOD}/333/C_333_1.csv`]: 'ChargePeriodStart,ChargePeriodEnd,BillingAccountId\r\n2024-10-01,2024-10-02,333\r\n',
      },
      'missing required column(s): BillingAccountName, BilledCost, BillingCurrency, ServiceName',
    ],
    [
      'metadata of another provider',
      { 'provider_metadata.yml': metadataYml('azure'), [COST_FILE]: costCsv(PERIOD, ACCOUNT, validRows(3)) },
      'differs from the upload',
    ],
  ])('fails the file with nothing written for %s', async (_name, entries, reason) => {
    const { refId, job } = await ingest(await zipOf(entries as Record<string, string | null>));
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: expect.stringContaining('malformed') });
    const record = await upload(refId);
    expect(record).toMatchObject({ status: 'failed', rowsWritten: 0 });
    expect(record.errors.map((error) => error.reason).join(' | ')).toContain(reason);
    expect(await lineItems({ uploadRefId: refId })).toHaveLength(0);
  });

  it('fails a file that is not a zip, and retries a failed job only', async () => {
    const { refId, jobId, job, uploadUrl } = await ingest(Buffer.from('this is not a zip'));
    expect(job).toMatchObject({ status: 'failed', error: expect.stringContaining('not a readable zip') });

    expectProblem(
      await api().post(`${GPD}/retry`).set('corelite-token', admin).send({ jobId: '00000000-0000-4000-8000-000000000000' }),
      400,
      'INVALID_JOB_ID',
    );
    expectProblem(await api().post(`${GPD}/retry`).set('corelite-token', stranger).send({ jobId }), 400, 'INVALID_JOB_ID');

    await put(uploadUrl, await validGpd({ rows: validRows(6), withAssets: false }));
    await api().post(`${GPD}/retry`).set('corelite-token', admin).send({ jobId }).expect(200, { status: 'accepted', jobId });
    const rerun = await finished(jobId);
    expect(rerun).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(await lineItems({ uploadRefId: refId })).toHaveLength(6);
    expect(await upload(refId)).toMatchObject({ status: 'enriched', rowsWritten: 6, errors: [] });

    expectProblem(await api().post(`${GPD}/retry`).set('corelite-token', admin).send({ jobId }), 400, 'INVALID_JOB_ID');
  });

  it('refuses files over the size limit with 413 and unknown uploads with 404', async () => {
    const { GPDUploadRefId, uploadUrl } = await submit();
    await put(uploadUrl, Buffer.alloc(1_100_000, 1));
    expectProblem(await enrich([GPDUploadRefId]), 413, 'GPD_FILE_TOO_LARGE');
    expectProblem(await enrich(['00000000-0000-4000-8000-000000000000']), 404, 'GPD_UPLOAD_NOT_FOUND');
    expectProblem(await api().post(GPD).set('corelite-token', admin), 400, 'VALIDATION_FAILED');
    expectProblem(
      await api().post(`${GPD}/enrich`).set('corelite-token', admin).send({ GPDUploadRefId: 'x', provider: [], retry: 'yes' }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('enriches an archive written by the generator (several accounts and periods, assets, utilization)', async () => {
    const out = join(tmpdir(), `gpd-${Date.now()}.zip`);
    await generateGpd({ rows: 20_000, provider: 'aws', accounts: 2, periods: ['202409', '202410'], out });
    const zip = await readFile(out);
    await rm(out);
    const { refId, job } = await ingest(zip);
    expect(job).toMatchObject({ status: 'succeeded', result: { rowsRead: 20_400, rowsWritten: 20_400, rowsRejected: 0 } });
    const periods = await api()
      .get('/api/costasset/v1/costLineItems')
      .query({ uploadRefId: refId, period: '202409', billingAccountId: 'aws000002', limit: 1 })
      .set('corelite-token', admin)
      .expect(200);
    expect(periods.body.items[0]).toMatchObject({ period: '202409', billingAccountId: 'aws000002', currency: 'EUR' });
    // its speed is measured by `npm run bench:ingest`, not here
  }, 180_000);

  it('reads account folders that encode any id (an Azure resource path) and gives the id back unchanged', async () => {
    const out = join(tmpdir(), `gpd-azure-${Date.now()}.zip`);
    await generateGpd({ rows: 40, provider: 'azure', accounts: 1, periods: ['202410'], out });
    const zip = await readFile(out);
    await rm(out);
    const account = '/providers/Microsoft.Billing/billingAccounts/000001';
    const { GPDUploadRefId, uploadUrl } = await submit(admin, 'azure');
    await put(uploadUrl, zip);
    const started = await api()
      .post(`${GPD}/enrich`)
      .set('corelite-token', admin)
      .send({ GPDUploadRefId: [GPDUploadRefId], provider: ['azure'], retry: 'false' })
      .expect(200);
    expect(await finished(started.body.jobs[0].jobId)).toMatchObject({ status: 'succeeded', result: { rowsWritten: 140 } });
    const items = await lineItems({ billingAccountId: account });
    expect(items).toHaveLength(40);
    expect(items[0]).toMatchObject({
      billingAccountId: account,
      assetAccountId: `${account}-sub`,
      sourceFile: expect.stringContaining('%2Fproviders%2F'),
      sourceRow: 2,
    });
    const assets = await api()
      .get('/api/costasset/v1/assets')
      .query({ billingAccountId: account })
      .set('corelite-token', admin)
      .expect(200);
    expect(assets.body.items[0]).toMatchObject({ assetAccountId: `${account}-sub` });
  });

  it(
    "lists a provider's uploads as the interface's list, newest first, " + 'at most `limit`, the next page named by X-Next-Cursor and Link',
    async () => {
      const provider = 'paged-provider';
      const refIds: string[] = [];
      for (let i = 0; i < 3; i++)
        refIds.push((await api().post(GPD).query({ providername: provider }).set('corelite-token', admin).expect(202)).body.GPDUploadRefId);
      const all = await api().get(GPD).query({ providername: provider }).set('corelite-token', admin).expect(200);
      expect(all.body.map((record: { GPDUploadRefId: string }) => record.GPDUploadRefId)).toEqual([...refIds].reverse());
      expect(all.headers['x-next-cursor']).toBeUndefined();
      const first = await api().get(GPD).query({ providername: provider, limit: 2 }).set('corelite-token', admin).expect(200);
      expect(first.body).toHaveLength(2);
      expect(first.headers.link).toContain('rel="next"');
      const next = await api()
        .get(GPD)
        .query({ providername: provider, limit: 2, cursor: first.headers['x-next-cursor'] })
        .set('corelite-token', admin)
        .expect(200);
      expect([...first.body, ...next.body]).toEqual(all.body);
      expect(next.headers['x-next-cursor']).toBeUndefined();
      // the Link header is the same request for the next page
      const linked = await api()
        .get(/<([^>]+)>/.exec(first.headers.link)![1])
        .set('corelite-token', admin)
        .expect(200);
      expect(linked.body).toEqual(next.body);
      expectProblem(
        await api().get(GPD).query({ providername: provider, cursor: 'not-a-cursor' }).set('corelite-token', admin),
        400,
        'VALIDATION_FAILED',
      );
    },
  );

  it('keeps tenants apart: foreign uploads, jobs and rows are invisible', async () => {
    const { refId, jobId } = await ingest(await validGpd({ rows: validRows(3) }));
    expect((await api().get(GPD).query({ providername: 'aws' }).set('corelite-token', stranger).expect(200)).body).toEqual([]);
    expectProblem(await enrich([refId], 'true', stranger), 404, 'GPD_UPLOAD_NOT_FOUND');
    expectProblem(await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', stranger), 404, 'JOB_NOT_FOUND');
    expect((await api().get('/api/costasset/v1/jobs').set('corelite-token', stranger).expect(200)).body).toEqual({
      items: [],
      nextCursor: null,
    });
    expect(await lineItems({}, stranger)).toEqual([]);
    expect((await api().get('/api/costasset/v1/assets').set('corelite-token', stranger).expect(200)).body.items).toEqual([]);
    expectProblem(
      await api().post(`${GPD}/cleanup`).query({ providername: 'aws' }).set('corelite-token', stranger).send({ GPDUploadRefId: refId }),
      404,
      'GPD_UPLOAD_NOT_FOUND',
    );
    expect(await lineItems({ uploadRefId: refId })).toHaveLength(3);
  });
});
