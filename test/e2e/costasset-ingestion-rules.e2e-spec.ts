import request from 'supertest';
import { validGpd, validRows } from '../support/gpd-fixtures';
import { ingestGpd } from '../support/ingest';
import { collectThresholdEvents, natsProbe } from '../support/nats-probe';
import { eventually, Platform, startPlatform } from '../support/platform';

/** Rules that act on ingestion: the COMMON_DISCOVERY gate and budget thresholds. */
describe('costasset ingestion rules', () => {
  let platform: Platform;
  let admin: string;

  const setFlag = (value: 'true' | 'false') =>
    request(platform.authz.url)
      .post('/core/featureflagmanagement/v1/featureflag')
      .set('corelite-token', admin)
      .send({ flag_key: 'COMMON_DISCOVERY', flag_value: value });
  const lineItemCount = async (provider: string) =>
    (
      await request(platform.costasset.url)
        .get('/api/costasset/v1/costLineItems')
        .query({ providerName: provider, limit: 1000 })
        .set('corelite-token', admin)
        .expect(200)
    ).body.items.length;

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  it('refuses the data of a provider outside SUPPORTED_CD_PROVIDERS while COMMON_DISCOVERY is on, and says why', async () => {
    await request(platform.authz.url)
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', admin)
      .send({ configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: ['aws', 'azure'] })
      .expect(200);
    await setFlag('true').expect(201);

    const refused = await ingestGpd(platform, admin, 'oracle', await validGpd({ provider: 'oracle', rows: validRows(4) }));
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/COMMON_DISCOVERY is on and provider "oracle" is not in SUPPORTED_CD_PROVIDERS/);
    expect(await lineItemCount('oracle')).toBe(0);
    const upload = (
      await request(platform.costasset.url)
        .get('/api/costasset/v1/gpd')
        .query({ providername: 'oracle' })
        .set('corelite-token', admin)
        .expect(200)
    ).body[0];
    expect(upload).toMatchObject({ status: 'failed', rowsWritten: 0 });
    expect(upload.errors[0].reason).toMatch(/SUPPORTED_CD_PROVIDERS/);

    const allowed = await ingestGpd(platform, admin, 'aws', await validGpd({ provider: 'aws', rows: validRows(4) }));
    expect(allowed.status).toBe('succeeded');
    expect(await lineItemCount('aws')).toBe(4);
  });

  it('takes a flag flipped in the core into account without a restart', async () => {
    await setFlag('false').expect(200);
    await eventually(async () => {
      const job = await ingestGpd(platform, admin, 'oracle', await validGpd({ provider: 'oracle', rows: validRows(3) }));
      expect(job.status).toBe('succeeded');
    });
    expect(await lineItemCount('oracle')).toBe(3);
  });

  it('publishes each budget threshold once as ingestions cross 50, 80 and 100%', async () => {
    const probe = await natsProbe(platform);
    try {
      const events = await collectThresholdEvents(probe.bus);
      await request(platform.costasset.url)
        .post('/api/costasset/v1/budgetController/budgets')
        .set('corelite-token', admin)
        .send({
          name: 'azure',
          amount: 100,
          currency: 'USD',
          scope: { expr: 'providerName == "azure"' },
          startPeriod: '202410',
          endPeriod: '202410',
          thresholds: [50, 80, 100],
        })
        .expect(201);
      const crossed = () => events.map((event) => event.threshold).sort((a, b) => a - b);
      // each validRows row costs 10.00 USD
      for (const [rows, expected] of [
        [6, [50]],
        [2, [50, 80]],
        [3, [50, 80, 100]],
      ] as const) {
        const job = await ingestGpd(
          platform,
          admin,
          'azure',
          await validGpd({ provider: 'azure', rows: validRows(rows), account: `acct${rows}` }),
        );
        expect(job.status).toBe('succeeded');
        await eventually(async () => expect(crossed()).toEqual(expected));
      }
      await ingestGpd(platform, admin, 'azure', await validGpd({ provider: 'azure', rows: validRows(1), account: 'acct-last' }));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(crossed()).toEqual([50, 80, 100]);
      expect(events.every((event) => event.period === '202410' && event.budgetName === 'azure')).toBe(true);
    } finally {
      await probe.close();
    }
  });
});
