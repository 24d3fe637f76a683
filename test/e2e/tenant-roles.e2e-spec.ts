import request from 'supertest';
import { csvLine } from '../../tools/gpd/gpd-content';
import { costTotals, importFocus } from '../support/focus';
import { waitForJob } from '../support/ingest';
import { Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const HEADER = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'ProviderName',
  'ServiceName',
  'Id',
];
const ACCOUNT_A = 'acct-a';
const ACCOUNT_B = 'acct-b';

/** A small FOCUS CSV: one row per [account, cost]. */
const focusCsv = (name: string, rows: [string, string][]) => ({
  name,
  body: Buffer.from(
    csvLine(HEADER) +
      rows
        .map(([account, cost], index) => csvLine([cost, account, 'USD', '2024-10-01', '2024-10-02', 'AWS', 'EC2', `${name}-${index}`]))
        .join(''),
  ),
});

/**
 * Roles inside one tenant, each rule tried as the exploit it closes (docs/decisions.md, "Who may do
 * what"): a reader and a Cost Data Manager who both see account A only, the admin's rows of A and B.
 */
describe('roles inside a tenant', () => {
  let platform: Platform;
  const tokens: Record<'admin' | 'reader' | 'manager' | 'otherManager', string> = {} as never;
  const api = () => request(platform.costasset.url);
  const authz = () => request(platform.authz.url);
  const totalsByAccount = async () =>
    Object.fromEntries(
      (await costTotals(platform, tokens.admin, { groupBy: 'billingAccountId' })).map((group) => [
        group.key.billingAccountId,
        group.billedCost,
      ]),
    );
  let adminUpload: string;

  beforeAll(async () => {
    platform = await startPlatform({ JOBS_RETRY_DELAY_MS: '100' });
    tokens.admin = await platform.token({ sub: 'admin' });
    const team = (team_code: string, roles: string[]) =>
      authz()
        .post('/authorization/v2/teams')
        .set('corelite-token', tokens.admin)
        .send({ team_code, org_code: 'finops', roles })
        .expect(201);
    const join = async (user_id: string, team_code: string) => {
      await authz().post('/authorization/v2/users').set('corelite-token', tokens.admin).send({ user_id }).expect(201);
      await authz().post('/authorization/v2/userteam').set('corelite-token', tokens.admin).send({ user_id, team_code }).expect(200);
    };
    await team('READERS', []);
    await team('LOADERS', ['Cost Data Manager']);
    await join('reader', 'READERS');
    await join('manager', 'LOADERS');
    await join('other-manager', 'LOADERS');
    await api()
      .post('/api/costasset/v1/dynamicResourceGroups')
      .set('corelite-token', tokens.admin)
      .send({
        _id: 'account-a',
        type: 'visibility',
        expr: `billingAccountId == "${ACCOUNT_A}"`,
        context: { teams: ['READERS', 'LOADERS'] },
      })
      .expect(200);
    tokens.reader = await platform.token({ sub: 'reader' });
    tokens.manager = await platform.token({ sub: 'manager' });
    tokens.otherManager = await platform.token({ sub: 'other-manager' });
    const imported = await importFocus(platform, tokens.admin, [
      focusCsv('invoice.csv', [
        [ACCOUNT_A, '10'],
        [ACCOUNT_B, '100'],
      ]),
    ]);
    expect(imported.job.status).toBe('succeeded');
    adminUpload = imported.uploadId;
  });
  afterAll(() => platform.close());

  it("refuses a member's forged FOCUS import of an account it cannot see, naming it, and leaves every total unchanged", async () => {
    const before = await totalsByAccount();
    expect(before).toEqual({ [ACCOUNT_A]: 10, [ACCOUNT_B]: 100 });
    // a reader changes no cost data at all
    expectProblem(
      await api()
        .post('/api/costasset/v1/focus/uploads')
        .set('corelite-token', tokens.reader)
        .send({ files: [{ name: 'forged.csv' }] }),
      403,
      'COST_DATA_MANAGER_REQUIRED',
    );
    // a Cost Data Manager's import naming an account outside its visibility, alone or beside its own
    for (const rows of [
      [[ACCOUNT_B, '0.01']],
      [
        [ACCOUNT_A, '10'],
        [ACCOUNT_B, '0.01'],
      ],
    ] as [string, string][][]) {
      const { uploadId, job } = await importFocus(platform, tokens.manager, [focusCsv('forged.csv', rows)]);
      expect(job.status).toBe('failed');
      expect(job.error).toContain('IMPORT_OUTSIDE_VISIBILITY');
      const record = (await api().get(`/api/costasset/v1/focus/uploads/${uploadId}`).set('corelite-token', tokens.manager).expect(200))
        .body;
      expect(record.status).toBe('failed');
      expect(record.errors).toEqual([expect.objectContaining({ reason: expect.stringContaining(`AWS/${ACCOUNT_B}`) })]);
      expect(await totalsByAccount()).toEqual(before);
    }
  });

  it('lets a Cost Data Manager restate its own accounts, replacing only rows it can see', async () => {
    const { job } = await importFocus(platform, tokens.manager, [focusCsv('restated.csv', [[ACCOUNT_A, '12']])]);
    expect(job.status).toBe('succeeded');
    expect(await totalsByAccount()).toEqual({ [ACCOUNT_A]: 12, [ACCOUNT_B]: 100 });
    const admins = (await api().get(`/api/costasset/v1/focus/uploads/${adminUpload}`).set('corelite-token', tokens.admin).expect(200)).body;
    expect(admins.scopes.map((scope: { billingAccountId: string }) => scope.billingAccountId)).toEqual([ACCOUNT_B]);
  });

  it("keeps an admin's upload and its files from members: no delete, no download, not listed", async () => {
    expectProblem(
      await api().delete(`/api/costasset/v1/focus/uploads/${adminUpload}`).set('corelite-token', tokens.reader),
      403,
      'COST_DATA_MANAGER_REQUIRED',
    );
    // the upload holds rows of account B, which the manager does not see: for it the upload does not exist
    expectProblem(
      await api().delete(`/api/costasset/v1/focus/uploads/${adminUpload}`).set('corelite-token', tokens.manager),
      404,
      'FOCUS_UPLOAD_NOT_FOUND',
    );
    const files = (await api().get('/api/costasset/extensions/data/list').set('corelite-token', tokens.admin).expect(200)).body as {
      key: string;
    }[];
    const adminFile = files.find((file) => file.key.startsWith(`gpd/${adminUpload}/`));
    expect(adminFile).toBeDefined();
    for (const token of [tokens.reader, tokens.manager]) {
      const listed = (await api().get('/api/costasset/extensions/data/list').set('corelite-token', token).expect(200)).body as {
        key: string;
      }[];
      expect(listed.map((file) => file.key)).not.toContain(adminFile?.key);
      expectProblem(
        await api().get('/api/costasset/extensions/data/download').query({ key: adminFile?.key }).set('corelite-token', token),
        404,
        'OBJECT_NOT_FOUND',
      );
      const uploads = (await api().get('/api/costasset/v1/focus/uploads').set('corelite-token', token).expect(200)).body.items as {
        uploadId: string;
      }[];
      expect(uploads.map((upload) => upload.uploadId)).not.toContain(adminUpload);
    }
    await api()
      .get('/api/costasset/extensions/data/download')
      .query({ key: adminFile?.key })
      .set('corelite-token', tokens.admin)
      .expect(200);
  });

  it('shows a restricted member no saved report output computed beyond its visibility', async () => {
    await api()
      .post('/api/costasset/v1/reportModels/by-account')
      .query({ templateId: 'cost-by-account', saveOutput: 'true' })
      .set('corelite-token', tokens.admin)
      .send({ append: true, type: 'v1', scope: 'public', vtags: [], expr: 'true' })
      .expect(200);
    const run = (token: string) =>
      api()
        .get('/api/costasset/v1/reportModels/by-account/execution')
        .query({ templateParams: '{}' })
        .set('corelite-token', token)
        .expect(200);
    const outputs = async (token: string) =>
      (await api().get('/api/costasset/v1/reportModels/by-account/outputs').set('corelite-token', token).expect(200)).body.items as {
        total: number;
        executedBy: string;
      }[];
    expect((await run(tokens.admin)).body.total).toBe(112);
    expect(await outputs(tokens.reader)).toEqual([]);
    // the reader's own run is computed within its visibility, and saved as such
    expect((await run(tokens.reader)).body.total).toBe(12);
    expect((await outputs(tokens.reader)).map((output) => [output.executedBy, output.total])).toEqual([['reader', 12]]);
    expect((await outputs(tokens.admin)).map((output) => output.total).sort()).toEqual([112, 12]);
  });

  it('lets nobody but its submitter and admins read or terminate a job', async () => {
    const created = await api()
      .post('/api/costasset/v1/focus/uploads')
      .set('corelite-token', tokens.manager)
      .send({ files: [{ name: 'slow.csv' }] })
      .expect(201);
    await fetch(created.body.files[0].uploadUrl, { method: 'PUT', body: focusCsv('slow.csv', [[ACCOUNT_A, '12']]).body });
    const { jobId } = (await api().post(created.body.importPath).set('corelite-token', tokens.manager).send({}).expect(202)).body;
    for (const token of [tokens.reader, tokens.otherManager]) {
      expectProblem(await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', token), 404, 'JOB_NOT_FOUND');
      expectProblem(await api().post(`/api/costasset/v1/jobs/${jobId}/terminate`).set('corelite-token', token), 404, 'JOB_NOT_FOUND');
      const listed = (await api().get('/api/costasset/v1/jobs').set('corelite-token', token).expect(200)).body.items as { jobId: string }[];
      expect(listed.map((job) => job.jobId)).not.toContain(jobId);
    }
    const own = (await api().get('/api/costasset/v1/jobs').set('corelite-token', tokens.manager).expect(200)).body.items as {
      jobId: string;
    }[];
    expect(own.map((job) => job.jobId)).toContain(jobId);
    expect((await waitForJob(platform, tokens.manager, jobId, 60_000)).status).toBe('succeeded');
  });

  it('lets a Cost Data Manager delete whole accounts it sees, and nothing else', async () => {
    const deletion = (token: string, filters: Record<string, unknown>) =>
      api().post('/api/costasset/v1/dataManagement').set('corelite-token', token).send({ filters });
    expectProblem(await deletion(tokens.reader, { billingAccountIds: [ACCOUNT_A] }), 403, 'COST_DATA_MANAGER_REQUIRED');
    expectProblem(await deletion(tokens.manager, { providerName: 'AWS' }), 400, 'DELETION_ACCOUNTS_REQUIRED');
    expectProblem(await deletion(tokens.manager, { billingAccountIds: [ACCOUNT_A, ACCOUNT_B] }), 403, 'DELETION_OUTSIDE_VISIBILITY');
    const accounts = (await api().get('/api/costasset/v1/dataManagement/accounts').set('corelite-token', tokens.manager).expect(200))
      .body as {
      billingAccountId: string;
    }[];
    expect(accounts.map((account) => account.billingAccountId)).toEqual([ACCOUNT_A]);
    const accepted = await deletion(tokens.manager, { billingAccountIds: [ACCOUNT_A] }).expect(201);
    expect((await waitForJob(platform, tokens.manager, accepted.body.jobId)).status).toBe('succeeded');
    expect(await totalsByAccount()).toEqual({ [ACCOUNT_B]: 100 });
    const mine = (await api().get('/api/costasset/v1/dataManagement').set('corelite-token', tokens.otherManager).expect(200)).body.items;
    expect(mine).toEqual([]);
  });

  it('lets a user in no team read nothing, but know who it is', async () => {
    const loner = await platform.token({ sub: 'loner' });
    expectProblem(await api().get('/api/costasset/v1/costLineItems').set('corelite-token', loner), 403, 'TEAM_REQUIRED');
    expectProblem(await api().get('/api/costasset/v1/focus/uploads').set('corelite-token', loner), 403, 'TEAM_REQUIRED');
    expectProblem(await authz().get('/core/configuration/v1/configvalues').set('corelite-token', loner), 403, 'TEAM_REQUIRED');
    expect((await authz().get('/core/authorization/v1/me').set('corelite-token', loner).expect(200)).body).toMatchObject({
      user_id: 'loner',
      teams: [],
    });
  });
});
