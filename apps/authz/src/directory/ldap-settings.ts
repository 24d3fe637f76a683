/** The tenant's `_ldap_config` entry (docs/interface.md#the-directory-entry-_ldap_config), decrypted, as the directory client needs it. */
export interface LdapSettings {
  base: string;
  /** `hostname[:port]` (389, or 636 with useSSL) or a full `ldap://` / `ldaps://` URL. */
  host: string;
  username: string;
  password: string;
  useSSL: boolean;
}

/** Where the directory settings of a tenant come from (the core configuration values). */
export abstract class LdapSettingsSource {
  abstract forTenant(tenantId: string): Promise<LdapSettings | null>;
}
