import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { zipOf } from '../support/gpd-fixtures';
import {
  declareSize,
  extensionZip,
  manyEntriesZip,
  rawZip,
  renameEntry,
  sampleManifest,
  sampleRawCsv,
  zerosZip,
} from '../support/extension-fixtures';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { configValues } from '../support/config-values';

const EXT = '/api/costasset/extensions';
const PROVIDER = 'acme';
const PROVIDER_NAME = 'Acme Cloud';
// The object store outlives each run's database: tenants of their own keep every run's keys apart.
const RUN = randomUUID().slice(0, 8);
const TENANT = `ext-${RUN}`;
const OTHER_TENANT = `ext-other-${RUN}`;

/** Extensions and raw data over HTTP against the real stack: extensions, raw data, flow into GPD, data routes. */
describe('costasset extensions and raw data', () => {
  let platform: Platform;
  let admin: string;
  /** A reader: in a team, without a role. */
  let member: string;
  /** A Cost Data Manager whose visibility groups show it nothing. */
  let manager: string;
  /** A user in no team. */
  let loner: string;
  let otherAdmin: string;
  const api = () => request(platform.costasset.url);

  type Presigned = { preSignedUrl: string; key: string; expiresAt: string };
  const presign = async (
    route: 'ObjectStoreExtensionRepo' | 'ObjectStoreInputHandler',
    Filename: string,
    ProviderCode = PROVIDER,
    token = admin,
  ): Promise<Presigned> =>
    (await api().post(`${EXT}/${route}`).query({ Filename, ProviderCode }).set('corelite-token', token).expect(200)).body;
  const put = async (url: string, body: Buffer) => {
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status).toBe(200);
  };
  const uploadExtension = async (Filename: string, zip: Buffer, ProviderCode = PROVIDER, token = admin) =>
    put((await presign('ObjectStoreExtensionRepo', Filename, ProviderCode, token)).preSignedUrl, zip);
  const validate = (Filename: string, ProviderCode = PROVIDER, token = admin) =>
    api().post(`${EXT}/ObjectStoreExtensionRepo/validate`).query({ Filename, ProviderCode }).set('corelite-token', token);
  const uploadRaw = async (Filename: string, zip: Buffer, ProviderCode = PROVIDER, token = admin) =>
    put((await presign('ObjectStoreInputHandler', Filename, ProviderCode, token)).preSignedUrl, zip);
  const notify = (Filename: string, ProviderCode = PROVIDER, token = admin) =>
    api().post(`${EXT}/notify/ObjectStoreInputHandler`).query({ Filename, ProviderCode }).set('corelite-token', token);
  const list = async (token = admin) =>
    (await api().get(`${EXT}/data/list`).set('corelite-token', token).expect(200)).body as {
      key: string;
      Size: string;
      lastModified: string;
    }[];
  const keys = async (prefix: string, token = admin) => (await list(token)).map((item) => item.key).filter((key) => key.startsWith(prefix));
  const flow = (providerCode = PROVIDER, token = admin) =>
    api().post(`${EXT}/flow`).set('corelite-token', token).send({ vars: { providerCode } });
  const finished = async (jobId: string) => {
    let body: { status: string } = { status: 'queued' };
    await eventually(
      async () => {
        body = (await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200)).body;
        expect(['succeeded', 'completed_with_errors', 'failed', 'terminated']).toContain(body.status);
      },
      30_000,
      150,
    );
    return body as { status: string; type: string; error?: string; result: Record<string, unknown> };
  };

  beforeAll(async () => {
    platform = await startPlatform({
      BOOTSTRAP_TENANTS: `${TENANT},${OTHER_TENANT}`,
      RAW_MAX_EXPANDED_BYTES: '1000000',
      RAW_MAX_ENTRIES: '50',
      JOBS_RETRY_DELAY_MS: '100',
    });
    admin = await platform.token({ sub: 'admin', tid: TENANT });
    ({ bob: member } = await teamMembers(platform, { code: 'READERS', tid: TENANT }, ['bob']));
    ({ carol: manager } = await teamMembers(platform, { code: 'LOADERS', roles: ['Cost Data Manager'], tid: TENANT }, ['carol']));
    loner = await platform.token({ sub: 'loner', tid: TENANT });
    otherAdmin = await platform.token({ sub: 'admin', tid: OTHER_TENANT });
    const config = configValues(platform, admin);
    await config('INSTANCE_CURRENCIES', ['EUR', 'USD']);
    await config('CURRENCY_EXCHANGE_RATES', { USD: 0.5 });
    await config('DEFAULT_CURRENCY', 'EUR');
  });
  afterAll(() => platform.close());

  describe('extension files', () => {
    it('presigns an upload under the tenant prefix, and validates the uploaded sample manifest', async () => {
      const signed = await presign('ObjectStoreExtensionRepo', 'acme-ext.zip');
      expect(signed).toEqual({
        preSignedUrl: expect.stringContaining(`tenants/${TENANT}/extensions/acme/acme-ext.zip`),
        key: 'extensions/acme/acme-ext.zip',
        expiresAt: expect.any(String),
      });
      await put(signed.preSignedUrl, await extensionZip());
      expect((await validate('acme-ext.zip').expect(200)).body).toEqual({ valid: true, errors: [] });
    });

    it('answers each kind of invalid manifest with its error', async () => {
      // under a provider of their own, so that the flow of `acme` never picks one of them
      const manifest = () => ({ ...sampleManifest(), providerCode: 'broken' });
      const cases: [string, Buffer, { path?: string; message: RegExp }][] = [
        ['no-manifest.zip', await zipOf({ 'README.txt': 'hello' }), { path: 'extension.json', message: /missing/ }],
        ['bad-json.zip', await extensionZip('{ "providerCode": '), { path: 'extension.json', message: /not valid JSON/ }],
        [
          'wrong-provider.zip',
          await extensionZip({ ...manifest(), providerCode: 'other' }),
          { path: 'providerCode', message: /differs from the ProviderCode "broken"/ },
        ],
        [
          'syntax.zip',
          await extensionZip({ ...manifest(), mapping: { ...manifest().mapping, BilledCost: '$number(amount' } }),
          { path: 'mapping.BilledCost', message: /JSONata syntax error/ },
        ],
        ['not-a-zip.zip', Buffer.from('plain text, not a zip'), { message: /not a readable zip/ }],
      ];
      const unmapped = manifest();
      delete unmapped.mapping.ServiceName;
      cases.push([
        'unmapped.zip',
        await extensionZip(unmapped),
        { path: 'mapping.ServiceName', message: /required GPD column is not mapped/ },
      ]);
      cases.push([
        'unknown.zip',
        await extensionZip({ ...manifest(), mapping: { ...manifest().mapping, Colour: 'colour' } }),
        { path: 'mapping.Colour', message: /unknown GPD column/ },
      ]);

      for (const [fileName, zip, expected] of cases) {
        await uploadExtension(fileName, zip, 'broken');
        const res = await validate(fileName, 'broken').expect(200);
        expect({ fileName, body: res.body }).toEqual({
          fileName,
          body: {
            valid: false,
            errors: [
              expected.path
                ? { path: expected.path, message: expect.stringMatching(expected.message) }
                : { message: expect.stringMatching(expected.message) },
            ],
          },
        });
      }
    });

    it('refuses a missing file, bad names, non-admins and other tenants', async () => {
      expectProblem(await validate('never-uploaded.zip'), 404, 'EXTENSION_NOT_FOUND');
      expectProblem(await validate('acme-ext.zip', PROVIDER, otherAdmin), 404, 'EXTENSION_NOT_FOUND');
      const theirs = await presign('ObjectStoreExtensionRepo', 'acme-ext.zip', PROVIDER, otherAdmin);
      expect(theirs.preSignedUrl).toContain(`tenants/${OTHER_TENANT}/extensions/acme/acme-ext.zip`);
      expect(theirs.preSignedUrl).not.toContain(`tenants/${TENANT}/`);
      // extensions are System Admin work: not even a Cost Data Manager uploads or validates one
      for (const token of [member, manager, loner]) {
        expectProblem(await validate('acme-ext.zip', PROVIDER, token), 403, 'SYSTEM_ADMIN_REQUIRED');
        expectProblem(
          await api()
            .post(`${EXT}/ObjectStoreExtensionRepo`)
            .query({ Filename: 'acme-ext.zip', ProviderCode: PROVIDER })
            .set('corelite-token', token),
          403,
          'SYSTEM_ADMIN_REQUIRED',
        );
      }
      for (const query of [
        { Filename: '../x.zip', ProviderCode: PROVIDER },
        { Filename: 'x.tar', ProviderCode: PROVIDER },
        { Filename: 'x.zip', ProviderCode: 'Acme' },
        { Filename: 'x.zip' },
      ]) {
        expectProblem(
          await api().post(`${EXT}/ObjectStoreExtensionRepo`).query(query).set('corelite-token', admin),
          400,
          'VALIDATION_FAILED',
        );
      }
      await api().post(`${EXT}/ObjectStoreExtensionRepo`).query({ Filename: 'acme-ext.zip', ProviderCode: PROVIDER }).expect(401);
    });
  });

  describe('raw data', () => {
    it('expands an uploaded raw zip into the store and lists the files', async () => {
      const signed = await presign('ObjectStoreInputHandler', 'acme-raw.zip');
      expect(signed.key).toBe('raw/acme/uploads/acme-raw.zip');
      await put(
        signed.preSignedUrl,
        await zipOf({ 'usage-202410.csv': sampleRawCsv(), 'notes/': null, 'notes/readme.txt': 'not matched by the pattern' }),
      );
      const res = await notify('acme-raw.zip').expect(200);
      expect(res.body).toEqual({
        results: 'ok',
        files: ['raw/acme/expanded/acme-raw.zip/usage-202410.csv', 'raw/acme/expanded/acme-raw.zip/notes/readme.txt'],
      });
      const listed = await list();
      expect(listed).toEqual(
        expect.arrayContaining([
          {
            key: 'raw/acme/expanded/acme-raw.zip/usage-202410.csv',
            Size: String(Buffer.byteLength(sampleRawCsv())),
            lastModified: expect.any(String),
          },
          expect.objectContaining({ key: 'raw/acme/uploads/acme-raw.zip' }),
        ]),
      );

      expectProblem(await notify('acme-raw.zip', PROVIDER, otherAdmin), 404, 'RAW_DATA_NOT_FOUND');
      expectProblem(await notify('acme-raw.zip', PROVIDER, member), 403, 'COST_DATA_MANAGER_REQUIRED');
      expectProblem(await notify('acme-raw.zip', PROVIDER, loner), 403, 'TEAM_REQUIRED');
      expect(await keys('raw/', otherAdmin)).toEqual([]);
      // raw provider data belongs to no upload: System Admins alone list it
      expect(await keys('raw/', member)).toEqual([]);
      expect(await keys('raw/', manager)).toEqual([]);
    });

    it('refuses `..` and absolute entries with nothing written', async () => {
      const parent = renameEntry(await zipOf({ 'ok.csv': 'a\n1\n', 'xx/evil.csv': 'a\n1\n' }), 'xx/evil.csv', '../evil.csv');
      await uploadRaw('parent.zip', parent, 'evil');
      expectProblem(await notify('parent.zip', 'evil'), 400, 'ARCHIVE_PATH_REFUSED');
      const absolute = renameEntry(await zipOf({ 'ok.csv': 'a\n1\n', 'Xetc/evil.csv': 'a\n1\n' }), 'Xetc/evil.csv', '/etc/evil.csv');
      await uploadRaw('absolute.zip', absolute, 'evil');
      expectProblem(await notify('absolute.zip', 'evil'), 400, 'ARCHIVE_PATH_REFUSED');
      expect(await keys('raw/evil/expanded/')).toEqual([]);
      expect((await list()).map((item) => item.key).filter((key) => key.includes('evil.csv'))).toEqual([]);
    });

    it('refuses a zip bomb, a zip whose headers lie about its size, and too many entries, leaving nothing behind', async () => {
      const bomb = await zerosZip({ 'zeros.csv': 20 * 1024 * 1024 });
      expect(bomb.length).toBeLessThan(100_000);
      await uploadRaw('bomb.zip', bomb, 'bomb');
      expectProblem(await notify('bomb.zip', 'bomb'), 413, 'ARCHIVE_TOO_LARGE');

      // the first entry is honest and gets written; the second declares 1000 bytes and holds 600 KB
      const liar = declareSize(await zerosZip({ 'first.csv': 300_000, 'second.csv': 600_000 }), 'second.csv', 1000);
      await uploadRaw('liar.zip', liar, 'bomb');
      expectProblem(await notify('liar.zip', 'bomb'), 400, 'ARCHIVE_INVALID');
      expect(await keys('raw/bomb/expanded/')).toEqual([]);

      await uploadRaw('many.zip', await manyEntriesZip(51), 'bomb');
      expectProblem(await notify('many.zip', 'bomb'), 413, 'ARCHIVE_TOO_LARGE');
      expect(await keys('raw/bomb/expanded/')).toEqual([]);

      await uploadRaw('fifty.zip', await manyEntriesZip(50), 'bomb');
      expect((await notify('fifty.zip', 'bomb').expect(200)).body.files).toHaveLength(50);
    });

    it('answers 404 for a raw file never uploaded and 400 for one that is not a zip', async () => {
      expectProblem(await notify('missing.zip'), 404, 'RAW_DATA_NOT_FOUND');
      await uploadRaw('text.zip', Buffer.from('not a zip at all'), 'bomb');
      expectProblem(await notify('text.zip', 'bomb'), 400, 'ARCHIVE_INVALID');
    });
  });

  describe('flow', () => {
    it('refuses a provider without extension or without raw data', async () => {
      expectProblem(await flow('nobody'), 404, 'EXTENSION_NOT_FOUND');
      await uploadExtension('beta.zip', await extensionZip({ ...sampleManifest(), providerCode: 'beta' }), 'beta');
      expectProblem(await flow('beta'), 404, 'RAW_DATA_NOT_FOUND');
      const invalid = await flow('broken');
      expectProblem(invalid, 400, 'EXTENSION_INVALID');
      expect(invalid.body.errors).toEqual([expect.objectContaining({ field: expect.any(String), messages: [expect.any(String)] })]);
      expectProblem(await flow(PROVIDER, member), 403, 'COST_DATA_MANAGER_REQUIRED');
      expectProblem(await flow(PROVIDER, loner), 403, 'TEAM_REQUIRED');
      expectProblem(await flow(PROVIDER, otherAdmin), 404, 'EXTENSION_NOT_FOUND');
      expectProblem(await api().post(`${EXT}/flow`).set('corelite-token', admin).send({ vars: {} }), 400, 'VALIDATION_FAILED');
    });

    it('maps the raw rows into a GPD upload that enriches into line items with the mapped values', async () => {
      await uploadExtension('acme-ext.zip', await extensionZip());
      const withBadRow = `${sampleRawCsv().trimEnd()}\nsoon;ac-1001;Acme Prod;Compute;vm.small;vm-1;eu-1;1,00;usd;1;Hours;alpha\n`;
      await uploadRaw('acme-raw.zip', await rawZip({ 'usage-202410.csv': withBadRow }));
      await notify('acme-raw.zip').expect(200);

      const started = await flow().expect(200);
      expect(started.body).toEqual({ status: 'started', message: expect.any(String), jobId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      const jobId = started.body.jobId as string;
      const done = await finished(jobId);
      expect(done).toMatchObject({
        status: 'completed_with_errors',
        type: 'extension-flow',
        progress: { unit: 'bytes', rows: 5, percent: 100 },
        result: {
          rowsRead: 5,
          rowsWritten: 4,
          rowsRejected: 1,
          rawUpload: 'acme-raw.zip',
          errors: [
            {
              file: 'usage-202410.csv',
              line: 6,
              reason:
                'ChargePeriodStart "soonT00:00:00Z" is not an ISO 8601 date; ChargePeriodEnd "soonT23:59:59Z" is not an ISO 8601 date',
            },
          ],
          GPDUploadRefId: jobId,
          costFiles: 3,
        },
      });

      const uploads = (
        await api().get('/api/costasset/v1/gpd').query({ providername: PROVIDER_NAME }).set('corelite-token', admin).expect(200)
      ).body as Record<string, unknown>[];
      expect(uploads).toEqual([
        expect.objectContaining({ GPDUploadRefId: jobId, providerName: PROVIDER_NAME, fileName: 'acme-extension.zip', status: 'uploaded' }),
      ]);
      expect(await keys(`gpd/${jobId}/`)).toEqual([`gpd/${jobId}/acme-extension.zip`]);
      expect(
        (await api().get('/api/costasset/v1/gpd').query({ providername: PROVIDER_NAME }).set('corelite-token', otherAdmin).expect(200))
          .body,
      ).toEqual([]);

      const enrich = await api()
        .post('/api/costasset/v1/gpd/enrich')
        .set('corelite-token', admin)
        .send({ GPDUploadRefId: [jobId], provider: [PROVIDER_NAME], retry: 'false' })
        .expect(200);
      const enriched = await finished(enrich.body.jobs[0].jobId);
      expect(enriched).toMatchObject({ status: 'succeeded', result: { rowsRead: 4, rowsWritten: 4, rowsRejected: 0 } });

      const items = (
        await api()
          .get('/api/costasset/v1/costLineItems')
          .query({ uploadRefId: jobId, limit: 100 })
          .set('corelite-token', admin)
          .expect(200)
      ).body.items as Record<string, unknown>[];
      expect(items).toHaveLength(4);
      const vm = items.find((item) => item.resourceId === 'vm-1');
      expect(vm).toMatchObject({
        providerName: PROVIDER_NAME,
        billingAccountId: 'ac-1001',
        billingAccountName: 'Acme Prod',
        serviceName: 'Compute',
        assetType: 'vm.small',
        region: 'eu-1',
        period: '202410',
        billedCost: 12.5,
        billingCurrency: 'USD',
        cost: 6.25,
        currency: 'EUR',
        chargePeriodStart: '2024-10-01T00:00:00.000Z',
        tags: [{ group: 'team', key: 'owner', value: 'alpha' }],
        sourceFile: 'usage-202410.csv',
        sourceRow: 2,
      });
      expect(vm).not.toHaveProperty('customColumns');
      expect(items.filter((item) => item.period === '202411')).toHaveLength(1);
      expect(
        (await api().get('/api/costasset/v1/costLineItems').query({ uploadRefId: jobId }).set('corelite-token', otherAdmin).expect(200))
          .body.items,
      ).toEqual([]);
    });
    it('reads only the raw upload it is given, keeps any account id, and a rerun of the same upload replaces the earlier one', async () => {
      const manifest = {
        providerCode: 'azr',
        version: '1',
        input: { filePattern: '*.csv', csv: { delimiter: ',', quote: '"', header: true, encoding: 'utf8' } },
        mapping: {
          ChargePeriodStart: 'start',
          ChargePeriodEnd: 'end',
          BillingAccountId: 'account',
          BillingAccountName: 'name',
          BilledCost: 'cost',
          BillingCurrency: 'currency',
          ServiceName: 'service',
          ServiceCategory: 'category',
          RegionId: 'region',
          Tags: 'tags',
        },
        metadata: { providerName: 'Azure Raw', currency: 'USD' },
      };
      const account = '/providers/Microsoft.Billing/billingAccounts/7 été';
      const csv = (rows: string[][]) =>
        [
          'start,end,account,name,cost,currency,service,category,region,tags',
          ...rows.map((row) => row.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',')),
        ].join('\n');
      await uploadExtension('azr-ext.zip', await extensionZip(manifest), 'azr');
      // a time without offset is UTC (never the server's zone), NULL cells are null, tiny and negative amounts are kept
      await uploadRaw(
        'first.zip',
        await rawZip({
          'part.csv': csv([
            ['2024-09-30 22:00:00', '2024-09-30 23:00:00', account, 'Billing', '0.0000008', 'USD', 'Storage', 'Storage', 'NULL', 'NULL'],
            [
              '2024-09-30T23:00:00',
              '2024-10-01T00:00:00',
              account,
              'Billing',
              '-1.5',
              'USD',
              'VM',
              'Compute',
              'westeurope',
              '{"env":"prod","flag":true}',
            ],
          ]),
        }),
        'azr',
      );
      await notify('first.zip', 'azr').expect(200);
      await uploadRaw(
        'second.zip',
        await rawZip({ 'part.csv': csv([['2024-10-05', '2024-10-06', 'other', 'Other', '2', 'USD', 'VM', 'Compute', 'NULL', '']]) }),
        'azr',
      );
      await notify('second.zip', 'azr').expect(200);

      const consolidated = async (rawFile?: string) => {
        const started = await api()
          .post('/api/costasset/v2/enrichmentController/ingestion')
          .set('corelite-token', admin)
          .send({ vars: { providerCode: 'azr', ...(rawFile ? { rawFile } : {}) } })
          .expect(200);
        const flowJob = await finished(started.body.jobId);
        expect(flowJob.status).toBe('succeeded');
        const enrichment = await finished(flowJob.result.enrichmentJobId as string);
        expect(enrichment).toMatchObject({ status: 'succeeded' });
        return { flowJob, enrichment, refId: started.body.jobId as string };
      };
      const lineItems = async () =>
        (
          await api()
            .get('/api/costasset/v1/costLineItems')
            .query({ providerName: 'Azure Raw', limit: 100 })
            .set('corelite-token', admin)
            .expect(200)
        ).body.items as Record<string, unknown>[];

      // the latest raw upload only: the first one is not read again
      const latest = await consolidated();
      expect(latest.flowJob.result).toMatchObject({ rawUpload: 'second.zip', rowsRead: 1, rowsWritten: 1 });
      expect((await lineItems()).map((item) => item.billingAccountId)).toEqual(['other']);

      const first = await consolidated('first.zip');
      expect(first.flowJob.result).toMatchObject({ rawUpload: 'first.zip', rowsRead: 2, rowsWritten: 2, rowsRejected: 0 });
      const items = (await lineItems()).filter((item) => item.billingAccountId === account);
      expect(items).toHaveLength(2);
      expect(items[0]).toMatchObject({
        billingAccountId: account,
        chargePeriodStart: '2024-09-30T22:00:00.000Z',
        period: '202409',
        billedCost: 0.0000008,
        cost: 0.0000004,
        category: 'Storage',
        tags: [],
        sourceFile: 'part.csv',
        sourceRow: 2,
      });
      expect(items[0]).not.toHaveProperty('region');
      expect(items[1]).toMatchObject({
        billedCost: -1.5,
        region: 'westeurope',
        period: '202409',
        tags: [
          { key: 'env', value: 'prod' },
          { key: 'flag', value: 'true', type: 'boolean' },
        ],
      });
      const filtered = await api()
        .get('/api/costasset/v1/costLineItems')
        .query({ billingAccountId: account })
        .set('corelite-token', admin)
        .expect(200);
      expect(filtered.body.items).toHaveLength(2);

      // the same raw upload again: its earlier GPD file is superseded, the totals stay
      const again = await consolidated('first.zip');
      expect(again.enrichment.result).toMatchObject({ replaced: [{ uploadRefId: first.refId, rowsRemoved: 2 }] });
      expect((await lineItems()).filter((item) => item.billingAccountId === account)).toHaveLength(2);
      const uploads = (
        await api().get('/api/costasset/v1/gpd').query({ providername: 'Azure Raw' }).set('corelite-token', admin).expect(200)
      ).body;
      expect(uploads.find((upload: { GPDUploadRefId: string }) => upload.GPDUploadRefId === first.refId)).toMatchObject({
        status: 'superseded',
        supersededBy: [again.refId],
      });
    });
  });

  describe('data list, download and delete', () => {
    it(
      'lets a System Admin list and download raw data, others the files ' + 'of the uploads they see only, never outside the tenant prefix',
      async () => {
        await uploadRaw('download.zip', await rawZip({ 'usage-dl.csv': 'a;b\n1;2\n' }), 'dl');
        await notify('download.zip', 'dl').expect(200);
        expect(await keys('raw/dl/')).toEqual(['raw/dl/expanded/download.zip/usage-dl.csv', 'raw/dl/uploads/download.zip']);
        const download = (key: string, token: string) =>
          api()
            .get(`${EXT}/data/download`)
            .query({ key })
            .set('corelite-token', token)
            .buffer(true)
            .parse((res, done) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () => done(null, Buffer.concat(chunks)));
            });

        const file = await download('raw/dl/expanded/download.zip/usage-dl.csv', admin);
        expect(file.status).toBe(200);
        expect(file.headers['content-type']).toBe('application/octet-stream');
        expect((file.body as Buffer).toString()).toBe('a;b\n1;2\n');

        for (const key of [
          `../${OTHER_TENANT}/raw/dl/expanded/download.zip/usage-dl.csv`,
          `/tenants/${TENANT}/raw/dl/expanded/download.zip/usage-dl.csv`,
          `tenants/${TENANT}/raw/dl/expanded/download.zip/usage-dl.csv`,
          'raw/dl/../dl/expanded/download.zip/usage-dl.csv',
          'raw/dl/expanded/missing.csv',
        ]) {
          expectProblem(await api().get(`${EXT}/data/download`).query({ key }).set('corelite-token', admin), 404, 'OBJECT_NOT_FOUND');
        }
        // raw data is System Admin work: for anyone else of the tenant, or another tenant's admin, it does not exist
        for (const token of [member, manager, otherAdmin]) {
          expect(await keys('raw/dl/', token)).toEqual([]);
          expectProblem(
            await api()
              .get(`${EXT}/data/download`)
              .query({ key: 'raw/dl/expanded/download.zip/usage-dl.csv' })
              .set('corelite-token', token),
            404,
            'OBJECT_NOT_FOUND',
          );
        }

        // the file of an upload follows the upload: its creator sees it, a member who may not see the upload does not
        const submitted = (
          await api()
            .post('/api/costasset/v1/gpd')
            .query({ providername: 'dl', fileName: 'managed.zip' })
            .set('corelite-token', manager)
            .expect(202)
        ).body as { GPDUploadRefId: string; uploadUrl: string };
        await put(submitted.uploadUrl, Buffer.from("the manager's file"));
        const uploadKey = `gpd/${submitted.GPDUploadRefId}/managed.zip`;
        expect(await keys('gpd/', manager)).toEqual([uploadKey]);
        expect(((await download(uploadKey, manager).expect(200)).body as Buffer).toString()).toBe("the manager's file");
        expect(await keys(`gpd/${submitted.GPDUploadRefId}/`)).toEqual([uploadKey]);
        expect(await keys('gpd/', member)).toEqual([]);
        expectProblem(
          await api().get(`${EXT}/data/download`).query({ key: uploadKey }).set('corelite-token', member),
          404,
          'OBJECT_NOT_FOUND',
        );

        expectProblem(await api().get(`${EXT}/data/list`).set('corelite-token', loner), 403, 'TEAM_REQUIRED');
        await api().get(`${EXT}/data/list`).expect(401);
      },
    );

    it('deletes listed files for a System Admin, refusing keys outside the tenant', async () => {
      await uploadRaw('delete.zip', await rawZip({ 'usage-1.csv': 'a\n1\n', 'usage-2.csv': 'a\n2\n' }), 'del');
      await notify('delete.zip', 'del').expect(200);
      const listed = (await list()).filter((item) => item.key.startsWith('raw/del/expanded/'));
      expect(listed.map((item) => item.key)).toEqual([
        'raw/del/expanded/delete.zip/usage-1.csv',
        'raw/del/expanded/delete.zip/usage-2.csv',
      ]);
      const items = listed.map(({ key, Size }) => ({ key, Size }));

      expectProblem(await api().post(`${EXT}/data/delete`).set('corelite-token', member).send({ items }), 403, 'SYSTEM_ADMIN_REQUIRED');
      expectProblem(
        await api()
          .post(`${EXT}/data/delete`)
          .set('corelite-token', admin)
          .send({ items: [...items, { key: `../${OTHER_TENANT}/raw/x.csv`, Size: '1' }] }),
        404,
        'OBJECT_NOT_FOUND',
      );
      expectProblem(await api().post(`${EXT}/data/delete`).set('corelite-token', admin).send({ items: [] }), 400, 'VALIDATION_FAILED');
      expect((await api().post(`${EXT}/data/delete`).set('corelite-token', otherAdmin).send({ items }).expect(200)).body).toEqual({
        status: 'deleted',
        count: 0,
      });
      expect(await keys('raw/del/expanded/')).toHaveLength(2);

      const deleted = await api()
        .post(`${EXT}/data/delete`)
        .set('corelite-token', admin)
        .send({ items: [...items, { key: 'raw/del/expanded/never.csv', Size: '0' }] })
        .expect(200);
      expect(deleted.body).toEqual({ status: 'deleted', count: 2 });
      expect(await keys('raw/del/expanded/')).toEqual([]);
      expect(await keys('raw/del/uploads/')).toEqual(['raw/del/uploads/delete.zip']);
    });
  });
});
