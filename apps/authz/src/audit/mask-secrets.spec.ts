import { MASK, maskSecrets } from './mask-secrets';

describe('maskSecrets', () => {
  it('masks secret fields at any depth and leaves the rest', () => {
    const input = { configurationkey: '_ldap_config', configurationvalue: { host: 'h', password: 'p', nested: [{ apiToken: 't' }] } };
    expect(maskSecrets(input)).toEqual({
      configurationkey: '_ldap_config',
      configurationvalue: { host: 'h', password: MASK, nested: [{ apiToken: MASK }] },
    });
    expect(input.configurationvalue.password).toBe('p');
  });
});
