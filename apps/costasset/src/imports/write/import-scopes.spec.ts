import { ImportScopes } from './import-scopes';

describe('ImportScopes', () => {
  it('counts rows per (provider, account, period) in the order scopes are first seen, consecutive rows or not', () => {
    const scopes = new ImportScopes();
    for (const [provider, account, period] of [
      ['aws', '1', '202409'],
      ['aws', '1', '202409'],
      ['azure', '1', '202409'],
      ['aws', '1', '202409'],
      ['aws', '1', '202410'],
      ['aws', '2', '202409'],
      ['aws', '2', '202409'],
    ])
      scopes.count(provider, account, period);
    expect(scopes.size).toBe(4);
    expect(scopes.values()).toEqual([
      { providerName: 'aws', billingAccountId: '1', billingPeriod: '202409', rows: 3 },
      { providerName: 'azure', billingAccountId: '1', billingPeriod: '202409', rows: 1 },
      { providerName: 'aws', billingAccountId: '1', billingPeriod: '202410', rows: 1 },
      { providerName: 'aws', billingAccountId: '2', billingPeriod: '202409', rows: 2 },
    ]);
  });
});
