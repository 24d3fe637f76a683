import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { SecretSealer, secretSealerFrom } from '@lib/config';
import { AuthzEnvironment } from '../authz.environment';
import { LdapSettingsSource } from '../directory/ldap-settings';
import { ConfigEntryRepository } from './config-entry.repository';
import { ConfigLdapSettingsSource } from './config-ldap-settings.source';
import { ConfigurationController } from './configuration.controller';
import { ConfigurationHandler } from './configuration.handler';
import { ConfigurationService } from './configuration.service';
import { LdapConfigVault } from './ldap-config.vault';
import { ConfigEntry, ConfigEntrySchema } from './schemas/config-entry.schema';

/** Core configuration values. Global so that the directory client can inject LdapSettingsSource. */
@Global()
@Module({
  imports: [MongooseModule.forFeature([{ name: ConfigEntry.name, schema: ConfigEntrySchema }])],
  controllers: [ConfigurationController],
  providers: [
    {
      provide: SecretSealer,
      inject: [AuthzEnvironment],
      useFactory: (env: AuthzEnvironment) => secretSealerFrom(env, 'CONFIG_ENCRYPTION_KEY', 'config-encryption.key'),
    },
    ConfigEntryRepository,
    LdapConfigVault,
    ConfigurationService,
    ConfigurationHandler,
    { provide: LdapSettingsSource, useClass: ConfigLdapSettingsSource },
  ],
  exports: [LdapSettingsSource, ConfigurationService],
})
export class ConfigurationModule {}
