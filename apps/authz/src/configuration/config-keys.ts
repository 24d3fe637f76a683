/** Keys of configuration values (and feature flags): letters, digits, `_`, `.`, `-`, at most 128. */
export const CONFIG_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const CONFIG_KEY_RULE = 'letters, digits, "_", "." or "-", 1 to 128 characters';

/** Keys whose values have their own rules; any other key holds a string or an array of strings. */
export const ConfigKeys = {
  LDAP: '_ldap_config',
  SUPPORTED_CD_PROVIDERS: 'SUPPORTED_CD_PROVIDERS',
  COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS: 'COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS',
  INSTANCE_CURRENCIES: 'INSTANCE_CURRENCIES',
  DEFAULT_CURRENCY: 'DEFAULT_CURRENCY',
  CURRENCY_EXCHANGE_RATES: 'CURRENCY_EXCHANGE_RATES',
} as const;

/** What a configuration value may be: a string, a list of strings, or an object for the structured keys. */
export type ConfigValue = string | string[] | Record<string, unknown>;

/** `_ldap_config` as stored: the password is sealed (see SecretCipher). */
export type StoredLdapConfig = {
  base: string;
  host: string;
  username: string;
  password: string;
  useSSL: boolean;
};
