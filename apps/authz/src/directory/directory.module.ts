import { Logger, Module } from '@nestjs/common';
import { Directory } from './directory';
import { LdapDirectory } from './ldap-directory';
import { LdapSettings, LdapSettingsSource } from './ldap-settings';

/** Stands in when the application provides no `LdapSettingsSource`: no tenant has a directory. */
export class NoLdapSettings extends LdapSettingsSource {
  forTenant(): Promise<LdapSettings | null> {
    return Promise.resolve(null);
  }
}

/**
 * The directory client. Its settings come from the `LdapSettingsSource` that the (global)
 * configuration module provides from each tenant's `_ldap_config` entry.
 */
@Module({
  providers: [
    {
      provide: Directory,
      inject: [{ token: LdapSettingsSource, optional: true }],
      useFactory: (source?: LdapSettingsSource) => {
        if (!source) new Logger('Directory').warn('no LdapSettingsSource is provided: every tenant reads as having no directory');
        return new LdapDirectory(source ?? new NoLdapSettings());
      },
    },
  ],
  exports: [Directory],
})
export class DirectoryModule {}
