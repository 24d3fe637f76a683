import request from 'supertest';
import { LineItemsChanged, MessageBus } from '@lib/messaging';
import { UploadRecords } from '../../apps/costasset/src/uploads/upload-records';
import { JobRecordStore, ReportOutputStore } from '../../apps/costasset/src/housekeeping/housekeeping.repositories';
import { periodMonthsBefore } from '../../apps/costasset/src/housekeeping/retention';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../../apps/costasset/src/line-items/line-items.repository';
import { seedLineItems } from '../support/line-item-seed';
import { natsProbe } from '../support/nats-probe';
import { eventually, Platform, startPlatform } from '../support/platform';

const BASE = '/orc/costasset/v1/housekeeping';
const DAY = 24 * 3600 * 1000;

/** Housekeeping: temporary collections, all enriched data, data older than the period limit. */
describe('costasset housekeeping', () => {
  let platform: Platform;
  let probe: { bus: MessageBus; close(): Promise<void> };
  const events: LineItemsChanged[] = [];
  let admin: string;
  let otherAdmin: string;
  let lineItems: CostLineItemRepository;
  let assets: AssetRepository;
  let utilization: UtilizationRepository;

  const post = (path: string, token = admin) => request(platform.costasset.url).post(`${BASE}${path}`).set('corelite-token', token).send();
  const ago = (days: number) => new Date(Date.now() - days * DAY);
  const seedData = async (tenantId: string, periods: string[]) => {
    await seedLineItems(
      platform,
      tenantId,
      periods.map((period) => ({ providerName: 'aws', billingAccountId: 'acc', category: 'Compute', region: 'r', period, cost: 1 })),
    );
    const row = { uploadRefId: 'seed', providerName: 'aws', billingAccountId: 'acc', assetAccountId: 'sub', resourceId: 'r-1' };
    await assets.insertBulk(
      tenantId,
      periods.map((period) => ({ ...row, period, category: 'Compute', tags: [] })),
    );
    await utilization.insertBulk(
      tenantId,
      periods.map((period) => ({ ...row, period, timestamp: new Date(), metric: 'cpu', value: 1, unit: '%' })),
    );
  };
  const upload = (refId: string, status: string) =>
    ({
      refId,
      providerName: 'aws',
      fileName: `${refId}.zip`,
      objectKey: refId,
      status,
      rowsRead: 0,
      rowsWritten: 0,
      rowsRejected: 0,
      errors: [],
    }) as never;

  beforeAll(async () => {
    platform = await startPlatform({
      BOOTSTRAP_TENANTS: 'default,other',
      DATA_RETENTION_MONTHS: '24',
      REPORT_OUTPUT_RETENTION_DAYS: '30',
      JOB_RETENTION_DAYS: '7',
    });
    admin = await platform.token({ sub: 'admin' });
    otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    lineItems = platform.costasset.app.get(CostLineItemRepository);
    assets = platform.costasset.app.get(AssetRepository);
    utilization = platform.costasset.app.get(UtilizationRepository);
    probe = await natsProbe(platform);
    await probe.bus.subscribe('costasset.lineitems.changed', (event) => void events.push(event));
  });
  afterAll(async () => {
    await probe.close();
    await platform.close();
  });

  it('is for System Admins only', async () => {
    const bob = await platform.token({ sub: 'bob' });
    for (const path of ['', '/clean', '/cleanupoutdateddata'])
      expect((await post(path, bob).expect(403)).body.code).toBe('SYSTEM_ADMIN_REQUIRED');
  });

  it('removes report outputs and finished jobs past their retention, in the caller tenant only', async () => {
    const outputs = platform.costasset.app.get(ReportOutputStore);
    const output = (generatedAt: Date) => ({
      reportModelId: 'm',
      templateId: 'cost-by-provider',
      params: {},
      currency: 'USD',
      rows: [],
      total: 0,
      executedBy: 'admin',
      generatedAt,
    });
    await outputs.insertBulk('default', [output(ago(40)), output(ago(31)), output(ago(1))]);
    await outputs.insertBulk('other', [output(ago(40))]);
    const jobs = platform.costasset.app.get(JobRecordStore);
    const job = (jobId: string, status: string, finishedAt?: Date) =>
      ({
        jobId,
        type: 'x',
        status,
        payload: {},
        progress: { done: 0, total: 0, percent: 0 },
        attempts: 1,
        run: 0,
        terminateRequested: false,
        ...(finishedAt ? { finishedAt } : {}),
        createdAt: ago(50),
      }) as never;
    await jobs.insertBulk('default', [
      job('j-old-ok', 'succeeded', ago(8)),
      job('j-old-failed', 'failed', ago(30)),
      job('j-old-running', 'running'),
      job('j-recent', 'terminated', ago(1)),
    ]);
    await jobs.insertBulk('other', [job('j-other', 'succeeded', ago(30))]);

    const cleaned = await post('').expect(200);
    expect(cleaned.body).toMatchObject({
      removed: { reportOutputs: 2, jobs: 2 },
      reportOutputsBefore: expect.any(String),
      jobsBefore: expect.any(String),
    });
    expect(await outputs.count('default')).toBe(1);
    expect((await jobs.find('default')).map((entry) => entry.jobId).sort()).toEqual(['j-old-running', 'j-recent']);
    expect(await outputs.count('other')).toBe(1);
    expect(await jobs.count('other')).toBe(1);
    expect((await post('').expect(200)).body.removed).toEqual({ reportOutputs: 0, jobs: 0 });
  });

  it('removes data with a period before the retention limit and announces it', async () => {
    const now = new Date();
    const [old, limit, current] = [periodMonthsBefore(now, 30), periodMonthsBefore(now, 24), periodMonthsBefore(now, 0)];
    await seedData('default', [old, old, periodMonthsBefore(now, 25), limit, current]);
    await seedData('other', [old]);
    const answer = await post('/cleanupoutdateddata').expect(200);
    expect(answer.body).toEqual({ removed: { costLineItems: 3, assets: 3, utilization: 3 }, cutoffPeriod: limit, retentionMonths: 24 });
    expect((await lineItems.find('default', {}, { sort: { period: 1 } })).map((row) => row.period)).toEqual([limit, current]);
    expect(await assets.count('default')).toBe(2);
    expect(await utilization.count('default')).toBe(2);
    expect(await lineItems.count('other')).toBe(1);
    const read = await request(platform.costasset.url).get('/api/costasset/v1/costLineItems').set('corelite-token', admin).expect(200);
    expect(read.body.items).toHaveLength(2);
    await eventually(async () => {
      const event = events.find((entry) => entry.tenantId === 'default' && entry.reason === 'housekeeping');
      expect(event?.periods.sort()).toEqual([old, periodMonthsBefore(now, 25)].sort());
    });
  });

  it('cleans all enriched data of the tenant and marks its enriched uploads cleaned', async () => {
    // seeded in the collection itself: no upload routes could leave these statuses at once
    const uploads = platform.costasset.app.get(UploadRecords);
    await uploads.insertBulk('default', [
      upload('u-enriched', 'enriched'),
      upload('u-failed', 'failed'),
      upload('u-waiting', 'awaiting_upload'),
    ]);
    await uploads.insertBulk('other', [upload('u-other', 'enriched')]);
    const answer = await post('/clean').expect(200);
    expect(answer.body).toEqual({ removed: { costLineItems: 2, assets: 2, utilization: 2 }, gpdUploadsCleaned: 2 });
    expect(await lineItems.count('default')).toBe(0);
    expect(await assets.count('default')).toBe(0);
    expect(await utilization.count('default')).toBe(0);
    expect((await uploads.find('default', {}, { sort: { refId: 1 } })).map((entry) => `${entry.refId}:${entry.status}`)).toEqual([
      'u-enriched:cleaned',
      'u-failed:cleaned',
      'u-waiting:awaiting_upload',
    ]);
    expect((await uploads.findOne('other', { refId: 'u-other' }))?.status).toBe('enriched');
    expect(await lineItems.count('other')).toBe(1);
    expect(await assets.count('other')).toBe(1);
    const read = await request(platform.costasset.url).get('/api/costasset/v1/costLineItems').set('corelite-token', admin).expect(200);
    expect(read.body.items).toEqual([]);
    await eventually(async () =>
      expect(events.filter((entry) => entry.tenantId === 'default' && entry.reason === 'housekeeping')).toHaveLength(2),
    );

    const other = await post('/clean', otherAdmin).expect(200);
    expect(other.body).toEqual({ removed: { costLineItems: 1, assets: 1, utilization: 1 }, gpdUploadsCleaned: 1 });
    expect((await post('/clean').expect(200)).body).toEqual({
      removed: { costLineItems: 0, assets: 0, utilization: 0 },
      gpdUploadsCleaned: 0,
    });
  });
});
