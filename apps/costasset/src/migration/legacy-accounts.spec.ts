import { accountList, checkAccounts } from './legacy-accounts';

describe('legacy accounts', () => {
  it('accepts an array or { accounts }', () => {
    expect(accountList([{ id: 'a' }])).toHaveLength(1);
    expect(accountList({ accounts: [] })).toEqual([]);
    expect(() => accountList({ items: [] })).toThrow(/neither an array/);
  });

  it('validates each record and reports why one fails', () => {
    const [good, noName, badCurrency, notObject, duplicate] = checkAccounts([
      { id: 'acc-1', name: 'Prod', provider: 'aws', currency: 'USD', status: 'active', extra: 1 },
      { id: 'acc-2', provider: 'aws' },
      { id: 'acc-3', name: 'X', provider: 'aws', currency: 'usd' },
      'nope',
      { id: 'acc-1', name: 'Again', provider: 'aws' },
    ]);
    expect(good).toEqual({ ok: true, account: { id: 'acc-1', name: 'Prod', provider: 'aws', currency: 'USD', status: 'active' } });
    expect(noName).toEqual({ ok: false, accountId: 'acc-2', reason: expect.stringContaining('name') });
    expect(badCurrency).toEqual({ ok: false, accountId: 'acc-3', reason: expect.stringContaining('currency') });
    expect(notObject).toEqual({ ok: false, accountId: '#3', reason: 'the record is not an object' });
    expect(duplicate).toMatchObject({ ok: false, accountId: 'acc-1', reason: expect.stringContaining('duplicate') });
  });
});
