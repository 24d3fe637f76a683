import { Logger, Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Directory } from './directory';
import { LdapDirectory } from './ldap-directory';
import { LdapSettings, LdapSettingsSource } from './ldap-settings';

/**
 * Finds the application's `LdapSettingsSource` (provided by the configuration feature from the
 * tenant's `_ldap_config` entry) when it is first needed, wherever in the application it is
 * provided. Without one, no tenant has a directory.
 */
export class ApplicationLdapSettingsSource extends LdapSettingsSource {
  private readonly logger = new Logger('Directory');
  private source?: LdapSettingsSource;
  private warned = false;

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  forTenant(tenantId: string): Promise<LdapSettings | null> {
    const source = this.resolve();
    return source ? source.forTenant(tenantId) : Promise.resolve(null);
  }

  private resolve(): LdapSettingsSource | undefined {
    if (this.source) return this.source;
    try {
      this.source = this.moduleRef.get(LdapSettingsSource, { strict: false });
      return this.source;
    } catch {
      if (!this.warned) this.logger.warn('no LdapSettingsSource is provided: every tenant reads as having no directory');
      this.warned = true;
      return undefined;
    }
  }
}

@Module({
  providers: [
    {
      provide: Directory,
      inject: [ModuleRef],
      useFactory: (moduleRef: ModuleRef) => new LdapDirectory(new ApplicationLdapSettingsSource(moduleRef)),
    },
  ],
  exports: [Directory],
})
export class DirectoryModule {}
