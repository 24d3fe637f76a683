import { ExtensionManifest } from '../manifest/extension-manifest';
import { placeRow } from './gpd-placement';
import { RowMapper } from './row-mapper';

const manifest = (mapping: Record<string, string>): ExtensionManifest => ({
  providerCode: 'acme',
  version: '1',
  input: { filePattern: '*.csv', csv: { delimiter: ',', quote: '"', header: true, encoding: 'utf8' } },
  mapping,
});

describe('RowMapper', () => {
  it('maps a raw row into GPD cells, in GPD column order', async () => {
    const mapper = new RowMapper(
      manifest({ Tags: '{"team": team}', BilledCost: '$number(amount) * 2', ServiceName: 'svc', BillingAccountId: 'acct' }),
    );
    expect(mapper.columns).toEqual(['BillingAccountId', 'BilledCost', 'ServiceName', 'Tags']);
    expect(await mapper.map({ acct: 'a1', amount: '1.25', svc: 'Compute', team: 'blue' })).toEqual({
      ok: true,
      values: { BillingAccountId: 'a1', BilledCost: '2.5', ServiceName: 'Compute', Tags: '{"team":"blue"}' },
    });
  });

  it('gives an empty cell for a missing field and rejects arrays and failures', async () => {
    expect(await new RowMapper(manifest({ ServiceName: 'nothing' })).map({})).toEqual({ ok: true, values: { ServiceName: '' } });
    expect(await new RowMapper(manifest({ ServiceName: '[1, 2]' })).map({})).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^ServiceName: /),
    });
    expect(await new RowMapper(manifest({ BilledCost: '$number(amount)' })).map({ amount: 'ten' })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^BilledCost: /),
    });
  });

  it('stops an expression that runs past its time budget', async () => {
    const mapper = new RowMapper(
      manifest({ ServiceName: '( $f := function($n) { $n = 0 ? 0 : $f($n - 1) + $f($n - 1) }; $string($f(40)) )' }),
      { timeoutMs: 50, stack: 10_000, sequence: 10_000 },
    );
    const started = Date.now();
    expect(await mapper.map({})).toMatchObject({ ok: false, reason: expect.stringMatching(/timeout/i) });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('cannot reach anything but the row', async () => {
    const mapper = new RowMapper(manifest({ ServiceName: '$string($eval("$$"))', ResourceId: 'constructor' }));
    expect(await mapper.map({ a: '1' })).toEqual({ ok: true, values: { ServiceName: '{"a":"1"}', ResourceId: '' } });
  });
});

describe('placeRow', () => {
  it('puts a row in the folder of its period and billing account', () => {
    expect(placeRow({ ChargePeriodStart: '2024-10-05T00:00:00Z', BillingAccountId: 'acc-1' })).toEqual({
      period: '202410',
      billingAccountId: 'acc-1',
      entryName: '202410/acc-1/C_acc-1_20241001T000000Z.csv',
    });
  });

  it('refuses rows it cannot place', () => {
    expect(placeRow({ ChargePeriodStart: 'soon', BillingAccountId: 'a' })).toMatch(/not a date/);
    expect(placeRow({ ChargePeriodStart: '2024-10-05', BillingAccountId: '' })).toMatch(/BillingAccountId is empty/);
    expect(placeRow({ ChargePeriodStart: '2024-10-05', BillingAccountId: '../x' })).toMatch(/cannot name a GPD folder/);
  });
});
