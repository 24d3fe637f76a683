import { ExtensionManifest } from '../../extensions/manifest/extension-manifest';
import { RowPlacer } from '../extension-flow/gpd-placement';
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

describe('RowPlacer', () => {
  const placer = () => new RowPlacer('Acme');
  const source = { file: 'usage.csv', line: 2 };
  const valid = {
    ChargePeriodStart: '2024-10-05 00:00:00',
    ChargePeriodEnd: '2024-10-06',
    BillingAccountId: 'acc-1',
    BilledCost: '8e-7',
    BillingCurrency: 'USD',
    ServiceName: 'x',
  };

  it('puts a row in the folder of its period and billing account, with UTC dates and its raw source', () => {
    expect(placer().place(valid, source)).toEqual({
      period: '202410',
      billingAccountId: 'acc-1',
      entryName: '202410/acc-1/C_acc-1_20241001T000000Z.csv',
      cells: {
        ...valid,
        ChargePeriodStart: '2024-10-05T00:00:00.000Z',
        ChargePeriodEnd: '2024-10-06T00:00:00.000Z',
        x_SourceFile: 'usage.csv',
        x_SourceRow: '2',
      },
    });
  });

  it('encodes any account id into its folder name', () => {
    const placed = placer().place({ ...valid, BillingAccountId: '/providers/Microsoft.Billing/billingAccounts/7' }, source);
    expect(placed).toMatchObject({
      entryName:
        '202410/%2Fproviders%2FMicrosoft.Billing%2FbillingAccounts%2F7/' +
        'C_%2Fproviders%2FMicrosoft.Billing%2FbillingAccounts%2F7_20241001T000000Z.csv',
    });
  });

  it('refuses, with every problem, the rows enrichment would refuse', () => {
    const placed = placer().place({ ...valid, ChargePeriodStart: 'soon', BilledCost: 'ten', BillingAccountId: 'NULL' }, source);
    expect('problems' in placed && placed.problems.map((found) => found.message)).toEqual([
      'ChargePeriodStart "soon" is not an ISO 8601 date',
      'BilledCost "ten" is not a decimal number',
      'BillingAccountId is empty',
    ]);
  });
});
