import request from 'supertest';
import { csvLine } from '../../tools/gpd/gpd-content';
import { Totals as ExpectedTotals } from '../../tools/focus/focus-rows';
import { allLineItems, costTotals, expectSameTotals, focusFile, importFocus, Totals } from '../support/focus';
import { waitForJob } from '../support/ingest';
import { teamMembers } from '../support/members';
import { Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { configValues } from '../support/config-values';

const AZURE_ACCOUNT = '/providers/Microsoft.Billing/billingAccounts/12345678';
const EUR_RATE = 1.1;

/** Totals read through the API equal the file's own exact sums, to 1e-6. */
function expectTotals(actual: Totals[], field: string, expected: Record<string, ExpectedTotals>): void {
  expect(actual.map((group) => group.key[field]).sort()).toEqual(Object.keys(expected).sort());
  for (const group of actual) {
    const want = expected[group.key[field] as string];
    expect(group.lineItems).toBe(want.rows);
    for (const amount of ['billedCost', 'effectiveCost', 'listCost', 'contractedCost'] as const) {
      expect(Math.abs(group[amount] - Number(want[amount]))).toBeLessThanOrEqual(1e-6);
    }
  }
}

/** FOCUS import and export over HTTP against the real stack, with files from tools/focus. Run under UTC and America/New_York. */
describe('costasset FOCUS import and export', () => {
  let platform: Platform;
  let admin: string;
  const api = () => request(platform.costasset.url);

  beforeAll(async () => {
    platform = await startPlatform({ GPD_BATCH_SIZE: '500', JOBS_RETRY_DELAY_MS: '100' });
    admin = await platform.token({ sub: 'admin' });
    const config = configValues(platform, admin);
    await config('INSTANCE_CURRENCIES', ['USD', 'EUR']);
    await config('CURRENCY_EXCHANGE_RATES', { EUR: EUR_RATE });
    await config('DEFAULT_CURRENCY', 'USD');
  });
  afterAll(() => platform.close());

  it(
    'imports a FOCUS 1.0 CSV mixing AWS, Azure and OCI with no manifest: ' +
      'every row, exact totals, ids, dates, NULLs, tags and x_ columns as given',
    async () => {
      const file = await focusFile({
        version: '1.0',
        format: 'csv',
        rows: 400,
        providers: ['aws', 'azure', 'oci'],
        periods: ['202409', '202410'],
      });
      const { uploadId, job } = await importFocus(platform, admin, [file]);
      expect(job).toMatchObject({ status: 'succeeded', result: { rowsRead: 400, rowsWritten: 400, rowsRejected: 0, rules: [] } });
      expect(job).toMatchObject({ progress: { unit: 'bytes', rows: 400, percent: 100 } });

      const scope = { uploadRefId: uploadId };
      expectTotals(await costTotals(platform, admin, { ...scope, groupBy: 'providerName' }), 'providerName', file.sums.byProvider);
      expectTotals(await costTotals(platform, admin, { ...scope, groupBy: 'category' }), 'category', file.sums.byServiceCategory);
      expectTotals(await costTotals(platform, admin, { ...scope, groupBy: 'billingPeriod' }), 'billingPeriod', file.sums.byBillingPeriod);
      expectTotals(
        await costTotals(platform, admin, { ...scope, groupBy: 'billingAccountId' }),
        'billingAccountId',
        file.sums.byBillingAccount,
      );

      // cost is billedCost for rows already in the corporate currency, converted unrounded otherwise
      const byProvider = await costTotals(platform, admin, { ...scope, groupBy: 'providerName' });
      for (const group of byProvider) {
        const rate = group.key.providerName === 'Microsoft' ? EUR_RATE : 1;
        expect(Math.abs(group.cost - group.billedCost * rate)).toBeLessThanOrEqual(1e-6);
      }
      const items = await allLineItems(platform, admin, scope);
      expect(items).toHaveLength(400);
      for (const item of items.filter((line) => line.billingCurrency === 'USD')) expect(item.cost).toBe(item.billedCost);
      const micro = items.filter((line) => line.billedCost === 8e-7);
      expect(micro.length).toBeGreaterThan(0);
      expect(micro.every((line) => line.cost !== 0)).toBe(true);
      expect(items.some((line) => line.chargeCategory === 'Credit' && (line.billedCost as number) < 0)).toBe(true);

      // NULL and empty cells are null, never the text NULL
      for (const field of ['region', 'resourceId', 'availabilityZone', 'commitmentDiscountId', 'chargeClass'])
        expect(items.filter((line) => line[field] === 'NULL' || line[field] === '')).toEqual([]);
      expect(items.filter((line) => line.region === undefined).length).toBeGreaterThan(0);

      // a charge of 2024-08-31 22:00:00 (no offset) is UTC and billed in September, whatever the server's zone
      const late = items.find((line) => line.sourceRow === 4) as Record<string, unknown>;
      expect(late).toMatchObject({
        chargePeriodStart: '2024-08-31T22:00:00.000Z',
        period: '202408',
        billingPeriod: '202409',
        billingPeriodStart: '2024-09-01T00:00:00.000Z',
        sourceFile: file.name,
      });

      const azure = items.find((line) => line.providerName === 'Microsoft') as Record<string, unknown>;
      expect(azure).toMatchObject({
        billingAccountId: AZURE_ACCOUNT,
        billingCurrency: 'EUR',
        category: azure.serviceCategory,
        focusVersion: '1.0',
      });
      expect(String(azure.assetAccountId)).toMatch(/^\/subscriptions\//);
      const tagged = items.find((line) => (line.tags as { key: string }[]).some((tag) => tag.key === 'flagged')) as { tags: unknown[] };
      expect(tagged.tags).toEqual(
        expect.arrayContaining([
          { group: 'default', key: 'flagged', value: 'true', type: 'boolean' },
          { group: 'user', key: 'team', value: expect.any(String), name: 'user:team' },
        ]),
      );
      expect(items.some((line) => (line.tags as { key: string }[]).some((tag) => tag.key === ' spaced key'))).toBe(true);
      expect(items.find((line) => line.sourceRow === 2)).toMatchObject({
        customColumns: [{ name: 'x_Note', value: 'café ☕, "quoted"' }],
      });

      // any identifier works in filters and expressions, and comes back unchanged
      const azureRows = file.sums.byBillingAccount[AZURE_ACCOUNT].rows;
      expect(await allLineItems(platform, admin, { billingAccountId: AZURE_ACCOUNT })).toHaveLength(azureRows);
      expect(await allLineItems(platform, admin, { expr: `billingAccountId == '${AZURE_ACCOUNT}' && true` })).toHaveLength(azureRows);

      const record = (await api().get(`/api/costasset/v1/focus/uploads/${uploadId}`).set('corelite-token', admin).expect(200)).body;
      expect(record).toMatchObject({
        format: 'focus',
        status: 'imported',
        rowsRead: 400,
        rowsWritten: 400,
        providers: ['AWS', 'Microsoft', 'Oracle'],
        parts: [
          {
            name: file.name,
            format: 'csv',
            focusVersion: '1.0',
            versionSource: 'columns',
            rowsRead: 400,
            rowsWritten: 400,
            rowsRejected: 0,
          },
        ],
        conformance: { rules: [] },
      });
      expect(record.scopes).toEqual(
        expect.arrayContaining([
          { providerName: 'Microsoft', billingAccountId: AZURE_ACCOUNT, billingPeriod: '202409', rows: expect.any(Number) },
        ]),
      );

      // the OpenAPI line-item schema lists every field the API returns
      const openapi = (await api().get('/docs/costasset/openapi.json').expect(200)).body;
      const documented = Object.keys(openapi.components.schemas.CostLineItemDto.properties);
      const returned = new Set(items.flatMap((line) => Object.keys(line)));
      expect([...returned].filter((field) => !documented.includes(field))).toEqual([]);
    },
  );

  it.each([
    ['1.1', 'csv.gz', undefined, '202301'],
    ['1.1', 'parquet', 'zstd', '202302'],
    ['1.2', 'csv.gz', undefined, '202303'],
    ['1.2', 'parquet', 'snappy', '202304'],
    ['1.3', 'csv.gz', undefined, '202305'],
    ['1.3', 'parquet', 'zstd', '202306'],
  ] as const)(
    'imports FOCUS %s as %s (%s) with exact totals per provider and ServiceCategory',
    async (version, format, compression, period) => {
      const file = await focusFile({ version, format, compression, rows: 300, periods: [period], nulls: 'NULL' });
      const { uploadId, job } = await importFocus(platform, admin, [file]);
      expect(job).toMatchObject({ status: 'succeeded', result: { rowsRead: 300, rowsWritten: 300, rowsRejected: 0 } });
      expectTotals(
        await costTotals(platform, admin, { uploadRefId: uploadId, groupBy: 'providerName' }),
        'providerName',
        file.sums.byProvider,
      );
      expectTotals(
        await costTotals(platform, admin, { uploadRefId: uploadId, groupBy: 'category' }),
        'category',
        file.sums.byServiceCategory,
      );
      const record = (await api().get(`/api/costasset/v1/focus/uploads/${uploadId}`).set('corelite-token', admin).expect(200)).body;
      expect(record.parts[0]).toMatchObject({ focusVersion: version, versionSource: format === 'parquet' ? 'metadata' : 'columns' });
      expect(record.providers).toEqual(['AWS', 'Google Cloud', 'Microsoft', 'Oracle']);
      const item = (await allLineItems(platform, admin, { uploadRefId: uploadId, providerName: 'AWS' }))[0];
      expect(item).toMatchObject({ focusVersion: version, serviceSubcategory: expect.any(String), skuMeter: 'Compute Usage' });
      if (version !== '1.1')
        expect(item).toMatchObject({ invoiceId: `INV-AWS-${period}`, pricingCurrency: 'USD', billingAccountType: 'Billing Account' });
      if (version === '1.3') expect(item).toMatchObject({ serviceProviderName: 'AWS', hostProviderName: 'AWS', providerName: 'AWS' });
    },
  );

  it('re-importing the same export replaces it, and a different file of the same provider does not re-read the first', async () => {
    const first = await focusFile({ version: '1.2', format: 'csv', rows: 120, periods: ['202401'] });
    const once = await importFocus(platform, admin, [first]);
    const totals = () => costTotals(platform, admin, { billingPeriod: '202401', groupBy: 'providerName' });
    const before = await totals();
    expectTotals(before, 'providerName', first.sums.byProvider);

    const twice = await importFocus(platform, admin, [first]);
    expect(twice.job).toMatchObject({ status: 'succeeded', result: { replaced: [{ uploadRefId: once.uploadId, rowsRemoved: 120 }] } });
    expectSameTotals(await totals(), before);
    expect(
      (await api().get(`/api/costasset/v1/focus/uploads/${once.uploadId}`).set('corelite-token', admin).expect(200)).body,
    ).toMatchObject({
      status: 'superseded',
      supersededBy: [twice.uploadId],
      scopes: [],
    });

    const other = await focusFile({ version: '1.2', format: 'csv', rows: 60, periods: ['202402'] });
    const next = await importFocus(platform, admin, [other]);
    expect(next.job).toMatchObject({ status: 'succeeded', result: { rowsRead: 60, replaced: [] } });
    expectSameTotals(await totals(), before);
    expectTotals(
      await costTotals(platform, admin, { billingPeriod: '202402', groupBy: 'providerName' }),
      'providerName',
      other.sums.byProvider,
    );
  });

  it('exports line items as FOCUS 1.2 CSV and Parquet, streamed, that import back into the same line items', async () => {
    const file = await focusFile({ version: '1.2', format: 'parquet', rows: 250, periods: ['202312'] });
    const original = await importFocus(platform, admin, [file]);
    const comparable = async (uploadRefId: string) =>
      (await allLineItems(platform, admin, { uploadRefId }))
        .map(({ id: _id, uploadRefId: _upload, sourceFile: _file, sourceRow: _row, ...rest }) => rest)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const expected = await comparable(original.uploadId);
    expect(expected).toHaveLength(250);

    for (const format of ['csv', 'parquet'] as const) {
      const exported = await api()
        .get('/api/costasset/v1/costLineItems/export')
        .query({ format, billingPeriod: '202312' })
        .set('corelite-token', admin)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect((exported.body as Buffer).length).toBeGreaterThan(1000);
      expect(exported.headers['content-disposition']).toMatch(
        new RegExp(`^attachment; filename="focus-1\\.2-cost-line-items-\\d{8}T\\d{6}Z\\.${format}"$`),
      );
      const again = await importFocus(platform, admin, [{ name: `export.${format}`, body: exported.body as Buffer }]);
      expect(again.job).toMatchObject({ status: 'succeeded', result: { rowsRead: 250, rowsWritten: 250 } });
      expect(await comparable(again.uploadId)).toEqual(expected);
    }
    // the caller's visibility applies: a member whose teams see no group exports a header and nothing else
    const { bob: member } = await teamMembers(platform, { code: 'READERS' }, ['bob']);
    const visible = await api()
      .get('/api/costasset/v1/costLineItems/export')
      .query({ billingPeriod: '202312' })
      .set('corelite-token', member)
      .expect(200);
    expect(visible.text.trim().split('\n')).toHaveLength(1);
    expect(await costTotals(platform, member, { billingPeriod: '202312' })).toEqual([]);
    // a user in no team exports nothing at all
    expectProblem(
      await api()
        .get('/api/costasset/v1/costLineItems/export')
        .query({ billingPeriod: '202312' })
        .set('corelite-token', await platform.token({ sub: 'loner' })),
      403,
      'TEAM_REQUIRED',
    );
    const bad = await api().get('/api/costasset/v1/costLineItems/export').query({ format: 'xlsx' }).set('corelite-token', admin);
    expectProblem(bad, 400, 'VALIDATION_FAILED');
    expectProblem(
      await api().get('/api/costasset/v1/costLineItems/export').query({ expr: 'vendor == "x"' }).set('corelite-token', admin),
      400,
      'INVALID_EXPRESSION',
    );
  });

  it('lists every problem of a rejected row, counts each rule in the conformance report, and never says plain succeeded', async () => {
    const header = [
      'BilledCost',
      'BillingAccountId',
      'BillingCurrency',
      'ChargeCategory',
      'ChargePeriodStart',
      'ChargePeriodEnd',
      'ProviderName',
      'ServiceCategory',
      'ServiceName',
      'Id',
    ];
    const rows = [
      ['1.5', 'acc', 'USD', 'Usage', '2022-01-01', '2022-01-02', 'AWS', 'Compute', 'EC2', 'r1'],
      ['abc', 'acc', 'usd', 'Usage', '2022-01-01', '2022-01-02', 'AWS', 'Compute', 'EC2', 'r2'],
      ['2', 'acc', 'USD', 'Refund', '2022-01-01', '2022-01-02', 'AWS', 'Compute', 'EC2', 'r3'],
      ['3', 'NULL', 'JPY', 'Usage', 'yesterday', '2022-01-02', 'AWS', 'Compute', 'EC2', 'r4'],
    ];
    const csv = Buffer.from(csvLine(header) + rows.map((row) => csvLine(row)).join(''));
    const { uploadId, job } = await importFocus(platform, admin, [{ name: 'hand made.csv', body: csv }], { focusVersion: '1.2' });
    expect(job).toMatchObject({ status: 'completed_with_errors', result: { rowsRead: 4, rowsWritten: 2, rowsRejected: 2 } });
    const record = (await api().get(`/api/costasset/v1/focus/uploads/${uploadId}`).set('corelite-token', admin).expect(200)).body;
    expect(record).toMatchObject({ status: 'imported_with_errors', parts: [{ focusVersion: '1.2', versionSource: 'declared' }] });
    expect(record.errors).toEqual([
      {
        file: 'hand made.csv',
        line: 3,
        id: 'r2',
        reason: 'BilledCost "abc" is not a decimal number; BillingCurrency "usd" is not an ISO 4217 code',
      },
      {
        file: 'hand made.csv',
        line: 5,
        id: 'r4',
        reason: 'ChargePeriodStart "yesterday" is not an ISO 8601 date; BillingAccountId is empty; no exchange rate from JPY to USD',
      },
    ]);
    const rules = Object.fromEntries(
      (record.conformance.rules as { rule: string; count: number; severity: string }[]).map((rule) => [rule.rule, rule]),
    );
    expect(rules.DECIMAL_INVALID).toMatchObject({
      count: 1,
      severity: 'error',
      examples: [{ file: 'hand made.csv', line: 3, id: 'r2', message: 'BilledCost "abc" is not a decimal number' }],
    });
    expect(rules.VALUE_NOT_ALLOWED).toMatchObject({
      count: 1,
      severity: 'warning',
      examples: [{ line: 4, message: expect.stringContaining('ChargeCategory "Refund"') }],
    });
    expect(rules.MANDATORY_COLUMN_MISSING).toMatchObject({
      severity: 'warning',
      examples: expect.arrayContaining([
        { file: 'hand made.csv', line: 0, message: 'BillingPeriodStart is mandatory in FOCUS 1.2 and missing' },
      ]),
    });
    expect(rules.MANDATORY_COLUMN_MISSING.count).toBeGreaterThan(5);
    expect((job.result as { rules: unknown[] }).rules).toEqual(record.conformance.rules);
    expect(await allLineItems(platform, admin, { uploadRefId: uploadId })).toEqual([
      expect.objectContaining({ sourceId: 'r1', billedCost: 1.5 }),
      expect.objectContaining({ sourceId: 'r3', chargeCategory: 'Refund' }),
    ]);

    const none = await importFocus(platform, admin, [{ name: 'bad.csv', body: Buffer.from(csvLine(header) + csvLine(rows[1])) }]);
    expect(none.job).toMatchObject({ status: 'failed', error: 'no row could be written: 1 read, 1 rejected' });
    const missing = await importFocus(platform, admin, [
      { name: 'no-cost.csv', body: Buffer.from('ChargePeriodStart,ProviderName\r\n2022-01-01,AWS\r\n') },
    ]);
    expect(missing.job).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('missing required column(s): BilledCost, BillingCurrency, BillingAccountId'),
    });
    const broken = await importFocus(platform, admin, [{ name: 'broken.parquet', body: Buffer.from('not parquet at all') }]);
    expect(broken.job).toMatchObject({ status: 'failed', error: expect.stringContaining('broken.parquet is not a readable Parquet file') });
  });

  it('waits for every named file, takes a FOCUS file through POST /v1/gpd too, and deletes rows by any account id', async () => {
    const created = await api()
      .post('/api/costasset/v1/focus/uploads')
      .set('corelite-token', admin)
      .send({ files: [{ name: 'part-1.csv.gz' }, { name: 'part 2 été.parquet' }], label: 'two parts' })
      .expect(201);
    const notReady = await api().post(created.body.importPath).set('corelite-token', admin).send({});
    expectProblem(notReady, 400, 'FOCUS_FILES_NOT_READY');
    expect(notReady.body.errors).toEqual([
      { field: 'files', messages: ['part-1.csv.gz is not uploaded'] },
      { field: 'files', messages: ['part 2 été.parquet is not uploaded'] },
    ]);
    expectProblem(
      await api()
        .post('/api/costasset/v1/focus/uploads')
        .set('corelite-token', admin)
        .send({ files: [{ name: 'export.xlsx' }] }),
      400,
      'FOCUS_FILE_FORMAT_UNKNOWN',
    );
    expectProblem(
      await api().post('/api/costasset/v1/focus/uploads').set('corelite-token', admin).send({ files: [] }),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(await api().get('/api/costasset/v1/focus/uploads/nope').set('corelite-token', admin), 404, 'FOCUS_UPLOAD_NOT_FOUND');

    const file = await focusFile({ version: '1.2', format: 'csv.gz', rows: 80, providers: ['azure'], periods: ['202201'] });
    const submitted = await api()
      .post('/api/costasset/v1/gpd')
      .query({ providername: 'Microsoft', fileName: 'azure-focus.csv.gz' })
      .set('corelite-token', admin)
      .expect(202);
    expect((await fetch(submitted.body.uploadUrl, { method: 'PUT', body: file.body })).status).toBe(200);
    const enrich = await api()
      .post('/api/costasset/v1/gpd/enrich')
      .set('corelite-token', admin)
      .send({ GPDUploadRefId: [submitted.body.GPDUploadRefId], provider: [], retry: 'false' })
      .expect(200);
    const job = await waitForJob(platform, admin, enrich.body.jobs[0].jobId);
    expect(job).toMatchObject({ status: 'succeeded', result: { rowsWritten: 80 } });
    const listed = (await api().get('/api/costasset/v1/gpd').query({ providername: 'microsoft' }).set('corelite-token', admin).expect(200))
      .body;
    expect(listed.find((upload: { GPDUploadRefId: string }) => upload.GPDUploadRefId === submitted.body.GPDUploadRefId)).toMatchObject({
      format: 'focus',
      status: 'imported',
    });

    const deletion = await api()
      .post('/api/costasset/v1/dataManagement')
      .set('corelite-token', admin)
      .send({ filters: { billingAccountIds: [AZURE_ACCOUNT], periodFrom: '202112', periodTo: '202201' }, reason: 'restated' })
      .expect(201);
    await waitForJob(platform, admin, deletion.body.jobId);
    expect(await allLineItems(platform, admin, { uploadRefId: submitted.body.GPDUploadRefId })).toEqual([]);
  });
});
