import { decodeGpdName, encodeGpdName } from './gpd-names';

describe('GPD folder names', () => {
  it.each([
    ['123456789012', '123456789012'],
    ['acme-prod.eu', 'acme-prod.eu'],
    ['/providers/Microsoft.Billing/billingAccounts/1234', '%2Fproviders%2FMicrosoft.Billing%2FbillingAccounts%2F1234'],
    ['arn:aws:iam::1:root', 'arn%3Aaws%3Aiam%3A%3A1%3Aroot'],
    ['Compte été 1', 'Compte%20%C3%A9t%C3%A9%201'],
    ['..', '%2E.'],
    ['.hidden', '%2Ehidden'],
    ['100%', '100%25'],
  ])('encodes %j as %j and decodes it back', (id, name) => {
    expect(encodeGpdName(id)).toBe(name);
    expect(decodeGpdName(name)).toBe(id);
  });

  it('answers undefined for a broken encoding', () => {
    expect(decodeGpdName('%E9x')).toBeUndefined();
  });
});
