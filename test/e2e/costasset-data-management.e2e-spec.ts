import request from 'supertest';
import { AssetRepository, CostLineItemRepository } from '../../apps/costasset/src/line-items/line-items.repository';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const BASE = '/api/costasset/v1/dataManagement';
const JOBS = '/api/costasset/v1/jobs';

type StoredRequest = Record<string, unknown> & { id: string; status: string; rowsRemoved: number };

/** Data management: deletion requests (batched jobs, cancellable), accounts and filter values. */
describe('costasset data management', () => {
  let platform: Platform;
  let admin: string;
  let otherAdmin: string;
  let lineItems: CostLineItemRepository;

  const api = (token = admin) => ({
    post: (path: string, body?: object) => request(platform.costasset.url).post(path).set('corelite-token', token).send(body),
    get: (path: string) => request(platform.costasset.url).get(path).set('corelite-token', token),
  });
  const item = (providerName: string, billingAccountId: string, period: string, cost = 1): SeedItem => ({
    providerName,
    billingAccountId,
    category: 'Compute',
    region: 'eu-west-1',
    period,
    cost,
  });
  const requestById = async (id: string, token = admin) => {
    const list = await api(token).get(`${BASE}?limit=1000`).expect(200);
    const found = (list.body.items as StoredRequest[]).find((entry) => entry.id === id);
    if (!found) throw new Error(`no deletion request ${id}`);
    return found;
  };
  const settled = async (id: string, status: string, token = admin) => {
    let found: StoredRequest = { id, status: '', rowsRemoved: 0 };
    await eventually(async () => {
      found = await requestById(id, token);
      expect(found.status).toBe(status);
      expect(found.finishedAt).toEqual(expect.any(String));
    }, 30_000);
    return found;
  };

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other', DATA_DELETION_BATCH_SIZE: '50' });
    admin = await platform.token({ sub: 'admin' });
    otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    lineItems = platform.costasset.app.get(CostLineItemRepository);
    await seedLineItems(platform, 'default', [
      item('aws', 'acc-1', '202401'),
      item('aws', 'acc-1', '202402'),
      item('aws', 'acc-1', '202402'),
      item('aws', 'acc-1', '202403'),
      item('aws', 'acc-2', '202402'),
      item('azure', 'acc-1', '202402'),
      item('azure', 'acc-3', '202405'),
    ]);
    await seedLineItems(platform, 'other', [item('aws', 'acc-1', '202402'), item('gcp', 'acc-9', '202312')]);
    await platform.costasset.app.get(AssetRepository).insertBulk('default', [
      {
        uploadRefId: 'seed',
        providerName: 'aws',
        billingAccountId: 'acc-1',
        assetAccountId: 'sub',
        period: '202402',
        resourceId: 'r-1',
        category: 'Compute',
        tags: [],
      },
      {
        uploadRefId: 'seed',
        providerName: 'aws',
        billingAccountId: 'acc-2',
        assetAccountId: 'sub',
        period: '202402',
        resourceId: 'r-2',
        category: 'Compute',
        tags: [],
      },
    ]);
  });
  afterAll(async () => {
    await platform.close();
  });

  it('lists billing accounts and filter values of the tenant only', async () => {
    const accounts = await api().get(`${BASE}/accounts`).expect(200);
    expect(accounts.body).toEqual([
      { providerName: 'aws', billingAccountId: 'acc-1', billingAccountName: 'acc-1', rows: 4, periodFrom: '202401', periodTo: '202403' },
      { providerName: 'aws', billingAccountId: 'acc-2', billingAccountName: 'acc-2', rows: 1, periodFrom: '202402', periodTo: '202402' },
      { providerName: 'azure', billingAccountId: 'acc-1', billingAccountName: 'acc-1', rows: 1, periodFrom: '202402', periodTo: '202402' },
      { providerName: 'azure', billingAccountId: 'acc-3', billingAccountName: 'acc-3', rows: 1, periodFrom: '202405', periodTo: '202405' },
    ]);
    const filters = await api().get(`${BASE}/filters`).expect(200);
    expect(filters.body.providers).toEqual(['aws', 'azure']);
    expect(filters.body.periods).toEqual(['202405', '202403', '202402', '202401']);
    expect(filters.body.accounts).toHaveLength(4);
    const other = await api(otherAdmin).get(`${BASE}/accounts`).expect(200);
    expect(other.body.map((a: { billingAccountId: string }) => a.billingAccountId)).toEqual(['acc-1', 'acc-9']);
    expect((await api(otherAdmin).get(`${BASE}/filters`).expect(200)).body.providers).toEqual(['aws', 'gcp']);
  });

  it('refuses invalid requests, members without the Cost Data Manager role and users in no team', async () => {
    expect((await api().post(BASE, { filters: {} }).expect(400)).body.code).toBe('DELETION_FILTER_REQUIRED');
    expect(
      (
        await api()
          .post(BASE, { filters: { billingAccountIds: [] } })
          .expect(400)
      ).body.code,
    ).toBe('DELETION_FILTER_REQUIRED');
    expect(
      (
        await api()
          .post(BASE, { filters: { periodFrom: '202405', periodTo: '202401' } })
          .expect(400)
      ).body.code,
    ).toBe('DELETION_PERIODS_INVALID');
    expect(
      (
        await api()
          .post(BASE, { filters: { periodFrom: '2024-01' } })
          .expect(400)
      ).body.code,
    ).toBe('VALIDATION_FAILED');
    expect((await api().post(BASE, {}).expect(400)).body.code).toBe('VALIDATION_FAILED');
    const { bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']);
    const loner = await platform.token({ sub: 'loner' });
    for (const [token, code] of [
      [bob, 'COST_DATA_MANAGER_REQUIRED'],
      [loner, 'TEAM_REQUIRED'],
    ]) {
      expectProblem(await api(token).post(BASE, { filters: { providerName: 'aws' } }), 403, code);
      expectProblem(await api(token).get(BASE), 403, code);
      expectProblem(await api(token).get(`${BASE}/accounts`), 403, code);
    }
    await request(platform.costasset.url).get(BASE).expect(401);
  });

  it('removes exactly the matching rows, then refuses to cancel the finished request', async () => {
    const filters = { providerName: 'aws', billingAccountIds: ['acc-1'], periodFrom: '202402', periodTo: '202403' };
    const created = await api().post(BASE, { filters, reason: 'account closed' }).expect(201);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      status: 'pending',
      filters,
      reason: 'account closed',
      requestedBy: 'admin',
      createdAt: expect.any(String),
      jobId: expect.any(String),
    });
    const done = await settled(created.body.id, 'completed');
    expect(done).toMatchObject({ rowsRemoved: 4, removed: { costLineItems: 3, assets: 1, utilization: 0 } });
    const job = await api().get(`${JOBS}/${created.body.jobId}`).expect(200);
    expect(job.body).toMatchObject({ type: 'data-deletion', status: 'succeeded' });

    const left = await lineItems.find('default', {}, { sort: { providerName: 1, billingAccountId: 1, period: 1 } });
    expect(left.map((row) => `${row.providerName}/${row.billingAccountId}/${row.period}`)).toEqual([
      'aws/acc-1/202401',
      'aws/acc-2/202402',
      'azure/acc-1/202402',
      'azure/acc-3/202405',
    ]);
    expect(await platform.costasset.app.get(AssetRepository).count('default')).toBe(1);
    expect(await lineItems.count('other')).toBe(2);
    const read = await api().get('/api/costasset/v1/costLineItems?providerName=aws&billingAccountId=acc-1').expect(200);
    expect(read.body.items.map((row: { period: string }) => row.period)).toEqual(['202401']);

    const refused = await api().post(`${BASE}/${created.body.id}`).expect(409);
    expect(refused.body.code).toBe('DELETION_NOT_CANCELLABLE');
    expect((await api().post(`${BASE}/0123456789abcdef01234567`).expect(404)).body.code).toBe('DELETION_REQUEST_NOT_FOUND');
    await api().post(`${BASE}/not-an-id`).expect(404);
  });

  it('cancels a running request between batches and says how many rows it removed', async () => {
    const total = 30_000;
    await seedLineItems(
      platform,
      'default',
      Array.from({ length: total }, (_, index) => item('bulk', `b-${index % 7}`, '202406', index)),
    );
    const created = await api()
      .post(BASE, { filters: { providerName: 'bulk' } })
      .expect(201);
    await eventually(
      async () => {
        const current = await requestById(created.body.id);
        expect(current.status).toBe('running');
        expect(current.rowsRemoved).toBeGreaterThan(0);
      },
      20_000,
      20,
    );
    const cancelled = await api().post(`${BASE}/${created.body.id}`).expect(200);
    expect(cancelled.body.status).toBe('cancelled');
    const stopped = await settled(created.body.id, 'cancelled');
    await eventually(async () => expect((await api().get(`${JOBS}/${created.body.jobId}`).expect(200)).body.status).toBe('terminated'));
    expect(stopped.rowsRemoved).toBeLessThan(total);
    expect(await lineItems.count('default', { providerName: 'bulk' })).toBe(total - stopped.rowsRemoved);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await requestById(created.body.id)).rowsRemoved).toBe(stopped.rowsRemoved);
    expect(await lineItems.count('default', { providerName: 'bulk' })).toBe(total - stopped.rowsRemoved);
    expect((await api().post(`${BASE}/${created.body.id}`).expect(409)).body.code).toBe('DELETION_NOT_CANCELLABLE');
  });

  it('lists requests newest first with a cursor, per tenant', async () => {
    const first = await api().get(`${BASE}?limit=1`).expect(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0].filters).toEqual({ providerName: 'bulk' });
    const second = await api().get(`${BASE}?limit=1&cursor=${first.body.nextCursor}`).expect(200);
    expect(second.body.items[0].reason).toBe('account closed');
    expect(second.body.nextCursor).toBeNull();

    expect((await api(otherAdmin).get(BASE).expect(200)).body.items).toEqual([]);
    expect((await api(otherAdmin).post(`${BASE}/${first.body.items[0].id}`).expect(404)).body.code).toBe('DELETION_REQUEST_NOT_FOUND');
    const own = await api(otherAdmin)
      .post(BASE, { filters: { billingAccountIds: ['acc-1'] } })
      .expect(201);
    expect(await settled(own.body.id, 'completed', otherAdmin)).toMatchObject({ rowsRemoved: 1 });
    expect(await lineItems.count('other')).toBe(1);
    expect(await lineItems.count('default', { billingAccountId: 'acc-1' })).toBe(2);
  });

  it('keeps deletion jobs and requests to their submitter and System Admins, and terminating one cancels its request', async () => {
    const total = 30_000;
    await seedLineItems(
      platform,
      'default',
      Array.from({ length: total }, (_, index) => item('bulk-2', `b-${index % 7}`, '202407', index)),
    );
    const created = await api()
      .post(BASE, { filters: { providerName: 'bulk-2' } })
      .expect(201);
    await eventually(async () => expect((await requestById(created.body.id)).status).toBe('running'), 20_000, 20);

    // for a member, and for a Cost Data Manager who did not ask for it, the admin's job and request do not exist
    const { dave } = await teamMembers(platform, { code: 'READERS' }, ['dave']);
    const { dora } = await teamMembers(platform, { code: 'LOADERS', roles: ['Cost Data Manager'] }, ['dora']);
    for (const member of [dave, dora]) {
      expectProblem(await api(member).post(`${JOBS}/${created.body.jobId}/terminate`), 404, 'JOB_NOT_FOUND');
      expectProblem(await api(member).get(`${JOBS}/${created.body.jobId}`), 404, 'JOB_NOT_FOUND');
      expect((await api(member).get(`${JOBS}?type=data-deletion`).expect(200)).body.items).toEqual([]);
      expect((await api(member).get(JOBS).expect(200)).body.items).toEqual([]);
    }
    expectProblem(await api(dora).post(`${BASE}/${created.body.id}`), 404, 'DELETION_REQUEST_NOT_FOUND');
    expect((await api(dora).get(BASE).expect(200)).body.items).toEqual([]);

    await api().post(`${JOBS}/${created.body.jobId}/terminate`).expect(200);
    const stopped = await settled(created.body.id, 'cancelled');
    await eventually(async () => expect((await api().get(`${JOBS}/${created.body.jobId}`).expect(200)).body.status).toBe('terminated'));
    expect(await lineItems.count('default', { providerName: 'bulk-2' })).toBe(total - stopped.rowsRemoved);
  });
});
