import request from 'supertest';
import { LineItemsChanged, MessageBus } from '@lib/messaging';
import { CurrencyConverter } from '../../apps/costasset/src/currency/currency-converter';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { natsProbe } from '../support/nats-probe';
import { eventually, Platform, startPlatform } from '../support/platform';

const REMEDIATE = '/api/costasset/v1/remediate';
const CATEGORIES = '/api/costasset/v1/providermetadata/service_categories';
const LOCATIONS = '/api/costasset/v1/providermetadata/locations';

type Row = {
  resourceId: string;
  category: string;
  location?: string;
  country?: string;
  locationRegion?: string;
  cost: number;
  currency: string;
};

/** Remediation: stored line items take the current category, location and exchange-rate mappings. */
describe('costasset remediation', () => {
  let platform: Platform;
  let probe: { bus: MessageBus; close(): Promise<void> };
  const events: LineItemsChanged[] = [];
  let admin: string;
  let otherAdmin: string;

  const remediate = (body: object, token = admin) =>
    request(platform.costasset.url).post(REMEDIATE).set('corelite-token', token).send(body);
  const rows = async (providerName: string, token = admin): Promise<Record<string, Row>> => {
    const page = await request(platform.costasset.url)
      .get('/api/costasset/v1/costLineItems')
      .query({ providerName })
      .set('corelite-token', token)
      .expect(200);
    return Object.fromEntries((page.body.items as Row[]).map((row) => [row.resourceId, row]));
  };
  const item = (resourceId: string, fields: Record<string, unknown>) =>
    ({
      providerName: 'aws',
      billingAccountId: 'acc',
      category: 'Old',
      region: 'eu-west-1',
      period: '202401',
      cost: 1,
      resourceId,
      ...fields,
    }) as SeedItem;
  const putConfig = (key: string, value: unknown) =>
    request(platform.authz.url)
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', admin)
      .send({ configurationkey: key, configurationvalue: value })
      .expect(200);

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    probe = await natsProbe(platform);
    await probe.bus.subscribe('costasset.lineitems.changed', (event) => void events.push(event));
    await seedLineItems(platform, 'default', [
      item('ec2', { assetType: 'AmazonEC2', billedCost: 100, billingCurrency: 'USD', cost: 100 }),
      item('s3', {
        assetType: 'AmazonS3',
        region: 'us-east-1',
        billedCost: 10,
        billingCurrency: 'GBP',
        cost: 10,
        period: '202402',
        location: 'Stale',
      }),
      item('bare', { region: 'nowhere', billedCost: 5, billingCurrency: 'JPY', cost: 5, period: '202402' }),
      item('vm', { providerName: 'azure', assetType: 'AmazonEC2', billedCost: 7, billingCurrency: 'USD', cost: 7 }),
    ]);
    await seedLineItems(platform, 'other', [item('ec2', { assetType: 'AmazonEC2', billedCost: 100, billingCurrency: 'USD', cost: 100 })]);
  });
  afterAll(async () => {
    await probe.close();
    await platform.close();
  });

  it('refuses invalid bodies and non-admins', async () => {
    expect((await remediate({ tasks: [] }).expect(400)).body.code).toBe('VALIDATION_FAILED');
    expect((await remediate({ tasks: ['bogus'] }).expect(400)).body.code).toBe('VALIDATION_FAILED');
    expect((await remediate({}).expect(400)).body.code).toBe('VALIDATION_FAILED');
    expect((await remediate({ tasks: ['location'], periodFrom: '202405', periodTo: '202401' }).expect(400)).body.code).toBe(
      'REMEDIATION_PERIODS_INVALID',
    );
    expect((await remediate({ tasks: ['location'] }, await platform.token({ sub: 'bob' })).expect(403)).body.code).toBe(
      'SYSTEM_ADMIN_REQUIRED',
    );
  });

  it('re-applies categories, locations and exchange rates to the selected provider, in the caller tenant only', async () => {
    await request(platform.costasset.url)
      .post(CATEGORIES)
      .query({ providerName: 'aws' })
      .set('corelite-token', admin)
      .send([{ providerName: 'aws', serviceCategory: 'Compute', assetType: 'AmazonEC2' }])
      .expect(200);
    await request(platform.costasset.url)
      .post(LOCATIONS)
      .query({ providerName: 'aws' })
      .set('corelite-token', admin)
      .send([{ providerName: 'aws', providerRegionCode: 'eu-west-1', region: 'Europe', country: 'IE', location: 'Dublin' }])
      .expect(200);
    await putConfig('DEFAULT_CURRENCY', 'EUR');
    await putConfig('CURRENCY_EXCHANGE_RATES', { USD: 0.5, GBP: 2 });
    await eventually(async () =>
      expect((await platform.costasset.app.get(CurrencyConverter).conversionFor('default')).rateOf('GBP')).toBe(2),
    );

    const answer = await remediate({ tasks: ['serviceCategory', 'location', 'currency'], providerName: 'aws' }).expect(200);
    expect(answer.body).toEqual({
      tasks: {
        serviceCategory: { matched: 3, modified: 3 },
        location: { matched: 3, modified: 2 },
        currency: { matched: 2, modified: 2, skippedCurrencies: ['JPY'] },
      },
    });
    const aws = await rows('aws');
    expect(aws.ec2).toMatchObject({
      category: 'Compute',
      location: 'Dublin',
      country: 'IE',
      locationRegion: 'Europe',
      cost: 50,
      currency: 'EUR',
    });
    expect(aws.s3).toMatchObject({ category: 'Uncategorized', cost: 20, currency: 'EUR' });
    expect(aws.s3.location).toBeUndefined();
    expect(aws.bare).toMatchObject({ category: 'Uncategorized', cost: 5, currency: 'USD' });
    expect((await rows('azure')).vm).toMatchObject({ category: 'Old', cost: 7, currency: 'USD' });
    expect((await rows('aws', otherAdmin)).ec2).toMatchObject({ category: 'Old', cost: 100 });
    await eventually(async () =>
      expect(events.find((event) => event.tenantId === 'default' && event.reason === 'remediation')?.periods.sort()).toEqual([
        '202401',
        '202402',
      ]),
    );

    const again = await remediate({ tasks: ['serviceCategory', 'location', 'currency'], providerName: 'aws' }).expect(200);
    expect(again.body.tasks.serviceCategory).toEqual({ matched: 3, modified: 0 });
    expect(again.body.tasks.location).toEqual({ matched: 3, modified: 0 });
  });

  it('limits a remediation to a period range and follows a changed mapping', async () => {
    await request(platform.costasset.url)
      .post(CATEGORIES)
      .query({ providerName: 'aws' })
      .set('corelite-token', admin)
      .send([
        { providerName: 'aws', serviceCategory: 'Virtual Machines', assetType: 'AmazonEC2' },
        { providerName: 'aws', serviceCategory: 'Storage', assetType: 'AmazonS3' },
      ])
      .expect(200);
    await eventually(async () => {
      await remediate({ tasks: ['serviceCategory'], periodFrom: '202402', periodTo: '202402' }).expect(200);
      const aws = await rows('aws');
      expect(aws.s3.category).toBe('Storage');
      expect(aws.ec2.category).toBe('Compute');
    });
    await remediate({ tasks: ['serviceCategory'], providerName: 'aws', periodFrom: '202401' }).expect(200);
    expect((await rows('aws')).ec2.category).toBe('Virtual Machines');
    expect((await rows('azure')).vm.category).toBe('Old');

    const other = await remediate({ tasks: ['serviceCategory'] }, otherAdmin).expect(200);
    expect(other.body.tasks.serviceCategory).toEqual({ matched: 1, modified: 1 });
    expect((await rows('aws', otherAdmin)).ec2.category).toBe('Uncategorized');
  });
});
