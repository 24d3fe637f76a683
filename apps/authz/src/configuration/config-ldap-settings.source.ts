import { Injectable } from '@nestjs/common';
import { LdapSettings, LdapSettingsSource } from '../directory/ldap-settings';
import { ConfigurationService } from './configuration.service';

/** The directory settings of a tenant from its `_ldap_config` configuration value, password decrypted. */
@Injectable()
export class ConfigLdapSettingsSource extends LdapSettingsSource {
  constructor(private readonly configuration: ConfigurationService) {
    super();
  }

  forTenant(tenantId: string): Promise<LdapSettings | null> {
    return this.configuration.ldapSettings(tenantId);
  }
}
