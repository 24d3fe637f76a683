import { checkManifest } from './extension-manifest';

const valid = () => ({
  providerCode: 'acme',
  version: '1.0.0',
  input: { filePattern: '**/*.csv', csv: { delimiter: ';', quote: '"', header: true, encoding: 'utf8' } },
  mapping: {
    ChargePeriodStart: 'usage_date & "T00:00:00Z"',
    ChargePeriodEnd: 'usage_date & "T23:59:59Z"',
    BillingAccountId: 'account',
    BillingAccountName: '"Account " & account',
    BilledCost: '$number(amount)',
    BillingCurrency: 'currency',
    ServiceName: 'service',
    Tags: '{"team": team}',
  },
  metadata: { providerName: 'Acme Cloud', currency: 'EUR' },
});
const check = (manifest: unknown, providerCode = 'acme') => checkManifest(JSON.stringify(manifest), providerCode);
const paths = (manifest: unknown, providerCode = 'acme') => check(manifest, providerCode).errors.map((error) => error.path);

describe('checkManifest', () => {
  it('accepts a complete manifest', () => {
    const checked = check(valid());
    expect(checked.errors).toEqual([]);
    expect(checked.manifest?.mapping.BilledCost).toBe('$number(amount)');
  });

  it('refuses text that is not a JSON object', () => {
    expect(checkManifest('{ nope', 'acme').errors).toEqual([{ path: 'extension.json', message: expect.stringMatching(/^not valid JSON/) }]);
    expect(checkManifest('[1]', 'acme').errors).toEqual([{ path: 'extension.json', message: 'must be a JSON object' }]);
  });

  it('refuses another provider code', () => {
    expect(check(valid(), 'other').errors).toEqual([{ path: 'providerCode', message: '"acme" differs from the ProviderCode "other"' }]);
  });

  it('reports a JSONata syntax error with its column', () => {
    const manifest = valid();
    manifest.mapping.BilledCost = '$number(amount';
    expect(check(manifest).errors).toEqual([{ path: 'mapping.BilledCost', message: expect.stringMatching(/^JSONata syntax error/) }]);
  });

  it('reports unmapped required and unknown columns', () => {
    const manifest = valid() as { mapping: Record<string, string> };
    delete manifest.mapping.ServiceName;
    manifest.mapping.Colour = 'colour';
    expect(check(manifest).errors).toEqual([
      { path: 'mapping.Colour', message: 'unknown GPD column' },
      { path: 'mapping.ServiceName', message: 'required GPD column is not mapped' },
    ]);
  });

  it('checks the input, metadata and top-level properties', () => {
    const manifest = {
      ...valid(),
      extra: 1,
      version: '',
      metadata: { currency: 'euro' },
      input: { filePattern: '/([/', csv: { delimiter: ';;', quote: ';', header: false, encoding: 'ebcdic' } },
    };
    expect(paths(manifest)).toEqual([
      'extra',
      'version',
      'input.filePattern',
      'input.csv.delimiter',
      'input.csv.header',
      'input.csv.encoding',
      'metadata.currency',
    ]);
    expect(paths({ ...valid(), input: undefined, mapping: [] })).toEqual(['input', 'mapping']);
  });
});
