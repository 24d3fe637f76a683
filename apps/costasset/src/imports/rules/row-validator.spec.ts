import { checkAssetRow, checkCostRow, checkUtilizationRow, FileContext, Row } from './row-validator';

const ctx: FileContext = {
  uploadRefId: 'ref-1',
  providerName: 'aws',
  period: '202410',
  billingAccountId: 'acc-1',
  conversion: { corporateCurrency: 'EUR', rateOf: (c) => ({ EUR: 1, USD: 0.5 })[c] },
  metadata: {
    categoriesByAssetType: new Map([['AmazonEC2', 'Compute']]),
    locationsByRegion: new Map([
      ['us-east-1', { providerName: 'aws', providerRegionCode: 'us-east-1', location: 'Virginia', country: 'US', region: 'North America' }],
    ]),
  },
};

const row = (overrides: Row = {}): Row => ({
  ChargePeriodStart: '2024-10-05T00:00:00Z',
  ChargePeriodEnd: '2024-10-06T00:00:00Z',
  BillingAccountId: 'acc-1',
  BillingAccountName: 'Account one',
  BilledCost: '12.50',
  BillingCurrency: 'USD',
  ServiceName: 'EC2',
  ResourceType: 'AmazonEC2',
  RegionId: 'us-east-1',
  SubAccountId: 'sub-1',
  Tags: '{"team:owner":"alpha"}',
  ...overrides,
});

const reason = (overrides: Row) => {
  const checked = checkCostRow(row(overrides), ctx);
  return checked.ok ? 'ok' : checked.reason;
};

describe('cost row validation and mapping', () => {
  it('maps category and location, converts BilledCost into the corporate currency, stamps the period', () => {
    const checked = checkCostRow(row(), ctx);
    expect(checked).toMatchObject({
      ok: true,
      doc: expect.objectContaining({
        providerName: 'aws',
        billingAccountId: 'acc-1',
        assetAccountId: 'sub-1',
        assetType: 'AmazonEC2',
        category: 'Compute',
        region: 'us-east-1',
        location: 'Virginia',
        country: 'US',
        locationRegion: 'North America',
        period: '202410',
        billedCost: 12.5,
        billingCurrency: 'USD',
        cost: 6.25,
        currency: 'EUR',
        chargePeriodStart: new Date('2024-10-05T00:00:00Z'),
        tags: [{ group: 'team', key: 'owner', value: 'alpha', name: 'team:owner' }],
        uploadRefId: 'ref-1',
        billingPeriod: '202410',
      }),
    });
  });

  it('leaves unmapped types Uncategorized and unmapped regions without location fields', () => {
    const checked = checkCostRow(row({ ResourceType: 'Unknown', RegionId: 'mars-1' }), ctx);
    expect(checked.ok && checked.doc).toMatchObject({ category: 'Uncategorized', region: 'mars-1' });
    expect(checked.ok && Object.keys(checked.doc)).not.toContain('location');
  });

  it.each([
    [{ ChargePeriodStart: '05/10/2024' }, 'ChargePeriodStart "05/10/2024" is not an ISO 8601 date'],
    [{ ChargePeriodStart: '2024-13-01T00:00:00Z' }, 'not an ISO 8601 date'],
    [{ ChargePeriodStart: '2024-11-01T00:00:00Z', ChargePeriodEnd: '2024-11-02T00:00:00Z' }, 'outside the period 202410'],
    [{ ChargePeriodEnd: '2024-10-01T00:00:00Z' }, 'ChargePeriodEnd is before ChargePeriodStart'],
    [{ BilledCost: '12,50' }, 'BilledCost "12,50" is not a decimal number'],
    [{ BilledCost: '' }, 'BilledCost is empty'],
    [{ BillingCurrency: 'usd' }, 'not an ISO 4217 code'],
    [{ BillingCurrency: 'JPY' }, 'no exchange rate from JPY to EUR'],
    [{ BillingAccountId: 'acc-2' }, 'differs from its folder'],
    [{ ServiceName: ' ' }, 'ServiceName is empty'],
    [{ Tags: '{broken' }, 'Tags:'],
  ])('rejects %j', (overrides, expected) => {
    expect(reason(overrides as Row)).toContain(expected);
  });

  it('accepts decimals with exponent and dates without time', () => {
    expect(reason({ BilledCost: '1.5e2', ChargePeriodStart: '2024-10-31', ChargePeriodEnd: '2024-11-01' })).toBe('ok');
  });

  it('reads dates without offset as UTC, NULL cells as null, and keeps amounts and x_ columns as given', () => {
    const checked = checkCostRow(
      row({
        ChargePeriodStart: '2024-10-31 22:00:00',
        ChargePeriodEnd: '2024-10-31T23:00:00',
        BilledCost: '-0.00000080000001',
        RegionId: 'NULL',
        Tags: 'NULL',
        x_Team: 'a b',
      }),
      ctx,
    );
    expect(checked.ok && checked.doc).toMatchObject({
      chargePeriodStart: new Date(Date.UTC(2024, 9, 31, 22)),
      period: '202410',
      billedCost: -0.00000080000001,
      cost: -0.00000080000001 * 0.5,
      tags: [],
      customColumns: [{ name: 'x_Team', value: 'a b' }],
    });
    expect(checked.ok && checked.doc).not.toHaveProperty('region');
  });

  it('lists every problem of a row', () => {
    expect(reason({ BilledCost: 'ten', BillingCurrency: 'usd', ChargePeriodStart: 'x' })).toBe(
      'ChargePeriodStart "x" is not an ISO 8601 date; BilledCost "ten" is ' +
        'not a decimal number; BillingCurrency "usd" is not an ISO 4217 code',
    );
  });
});

describe('asset and utilization rows', () => {
  const fileCtx = { ...ctx, assetAccountId: 'sub-1' };
  it('maps assets and requires ResourceId', () => {
    expect(
      checkAssetRow({ ResourceId: 'r1', ResourceName: 'n', ResourceType: 'AmazonEC2', RegionId: 'us-east-1', Tags: '' }, fileCtx),
    ).toEqual({
      ok: true,
      doc: expect.objectContaining({ resourceId: 'r1', category: 'Compute', location: 'Virginia', assetAccountId: 'sub-1', tags: [] }),
      problems: [],
    });
    expect(checkAssetRow({ ResourceId: '' }, fileCtx)).toMatchObject({ ok: false, reason: 'ResourceId is empty' });
  });

  it('validates utilization timestamps and values', () => {
    expect(
      checkUtilizationRow({ ResourceId: 'r1', Timestamp: '2024-10-02T00:00:00Z', Metric: 'cpu', Value: '0.5', Unit: 'ratio' }, fileCtx),
    ).toMatchObject({ ok: true });
    expect(
      checkUtilizationRow({ ResourceId: 'r1', Timestamp: 'yesterday', Metric: 'cpu', Value: '0.5', Unit: 'ratio' }, fileCtx),
    ).toMatchObject({ ok: false });
    expect(
      checkUtilizationRow({ ResourceId: 'r1', Timestamp: '2024-10-02', Metric: 'cpu', Value: 'high', Unit: 'ratio' }, fileCtx),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('Value') });
  });
});
