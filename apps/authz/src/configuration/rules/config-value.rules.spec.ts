import { configValueProblems } from './config-value.rules';
import { defaultCurrencyConsistencyProblems } from './currency.rules';
import { isLdapHost } from './ldap-config.rule';

const fields = (key: string, value: unknown) => configValueProblems(key, value).map((problem) => problem.field);
const ldap = { base: 'dc=corelite,dc=local', host: 'ldap.example.com:389', username: 'cn=admin', password: 'pw', useSSL: false };

describe('configuration value rules', () => {
  describe('_ldap_config', () => {
    it('accepts all five fields', () => {
      expect(fields('_ldap_config', ldap)).toEqual([]);
    });

    it('names every missing, empty, mistyped or unknown field', () => {
      expect(fields('_ldap_config', { ...ldap, base: '', useSSL: 'true', extra: 1 })).toEqual([
        'configurationvalue.extra',
        'configurationvalue.base',
        'configurationvalue.useSSL',
      ]);
      const { password: _password, ...withoutPassword } = ldap;
      expect(fields('_ldap_config', withoutPassword)).toEqual(['configurationvalue.password']);
      expect(fields('_ldap_config', 'ldap://host')).toEqual(['configurationvalue']);
      expect(fields('_ldap_config', [ldap])).toEqual(['configurationvalue']);
    });

    it.each([
      'ldap.example.com',
      'ldap:389',
      '10.0.0.1:636',
      '[::1]:389',
      'ldap://ldap.example.com',
      'LDAPS://ldap.example.com:636/',
      'openldap_1',
    ])('accepts the host %s', (host) => expect(isLdapHost(host)).toBe(true));

    it.each([
      'ldap.example.com:0',
      'host:70000',
      'http://ldap.example.com',
      'ldap://user:pw@host',
      'ldap://host/dc=x',
      'ldap://host?x',
      'a b',
      'host:port',
      '-bad.example.com',
      '[zz]:389',
    ])('refuses the host %s', (host) => expect(isLdapHost(host)).toBe(false));
  });

  describe('provider lists', () => {
    it.each(['SUPPORTED_CD_PROVIDERS', 'COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS'])('%s holds distinct lowercase identifiers', (key) => {
      expect(fields(key, ['aws', 'azure', 'gcp', 'oci', 'ibm_cloud'])).toEqual([]);
      expect(fields(key, [])).toEqual([]);
      expect(fields(key, ['aws', 'AWS', 'aws', 3])).toEqual(['configurationvalue.1', 'configurationvalue.2', 'configurationvalue.3']);
      expect(fields(key, 'aws')).toEqual(['configurationvalue']);
    });
  });

  describe('currencies', () => {
    it('INSTANCE_CURRENCIES is a non-empty list of distinct ISO 4217 codes', () => {
      expect(fields('INSTANCE_CURRENCIES', ['EUR', 'USD'])).toEqual([]);
      expect(fields('INSTANCE_CURRENCIES', [])).toEqual(['configurationvalue']);
      expect(fields('INSTANCE_CURRENCIES', ['EUR', 'eur', 'EURO', 'EUR'])).toEqual([
        'configurationvalue.1',
        'configurationvalue.2',
        'configurationvalue.3',
      ]);
    });

    it('DEFAULT_CURRENCY is one ISO 4217 code that stays in INSTANCE_CURRENCIES', () => {
      expect(fields('DEFAULT_CURRENCY', 'EUR')).toEqual([]);
      expect(fields('DEFAULT_CURRENCY', ['EUR'])).toEqual(['configurationvalue']);
      expect(fields('DEFAULT_CURRENCY', 'Eur')).toEqual(['configurationvalue']);
      expect(defaultCurrencyConsistencyProblems('EUR', ['USD'])).toHaveLength(1);
      expect(defaultCurrencyConsistencyProblems('EUR', ['USD', 'EUR'])).toEqual([]);
      expect(defaultCurrencyConsistencyProblems('EUR', null)).toEqual([]);
      expect(defaultCurrencyConsistencyProblems(null, ['USD'])).toEqual([]);
    });

    it('CURRENCY_EXCHANGE_RATES maps ISO 4217 codes to positive numbers', () => {
      expect(fields('CURRENCY_EXCHANGE_RATES', { USD: 0.92, GBP: 1.17 })).toEqual([]);
      expect(fields('CURRENCY_EXCHANGE_RATES', { usd: 1, GBP: 0, JPY: -1, CHF: '1.1', CAD: null })).toEqual([
        'configurationvalue.usd',
        'configurationvalue.GBP',
        'configurationvalue.JPY',
        'configurationvalue.CHF',
        'configurationvalue.CAD',
      ]);
      expect(fields('CURRENCY_EXCHANGE_RATES', [['USD', 1]])).toEqual(['configurationvalue']);
    });
  });

  describe('any other key', () => {
    it('holds a string or an array of strings of at most 64 KiB', () => {
      expect(fields('COLOR', 'blue')).toEqual([]);
      expect(fields('COLORS', ['blue', 'green'])).toEqual([]);
      expect(fields('COLORS', ['blue', 1])).toEqual(['configurationvalue.1']);
      expect(fields('COLOR', 42)).toEqual(['configurationvalue']);
      expect(fields('COLOR', { a: 'b' })).toEqual(['configurationvalue']);
      expect(fields('BIG', 'x'.repeat(64 * 1024))).toEqual([]);
      expect(fields('BIG', 'x'.repeat(64 * 1024 + 1))).toEqual(['configurationvalue']);
      expect(fields('BIG', ['x'.repeat(40 * 1024), 'y'.repeat(40 * 1024)])).toEqual(['configurationvalue']);
      expect(fields('BIG', 'é'.repeat(32 * 1024 + 1))).toEqual(['configurationvalue']);
    });
  });
});
