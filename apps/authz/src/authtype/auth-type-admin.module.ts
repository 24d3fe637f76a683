import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { AuthTypeChangeNotifier } from './auth-type-change.notifier';
import { AuthTypeConfigurationController } from './auth-type-configuration.controller';
import { AuthTypeConfigurationService } from './auth-type-configuration.service';
import { AuthTypeModule } from './auth-type.module';
import { HybridAdminTeamService } from './hybrid-admin-team.service';
import { IdpMappingController } from './idp-mapping.controller';
import { IdpMappingService } from './idp-mapping.service';

/**
 * The HTTP side of auth types (docs/interface.md#auth-type-configurations-and-idp-mappings-admin). Kept apart from AuthTypeModule, whose
 * resolver identity reads (as IdpAuthTypes): this module needs identity's repositories.
 */
@Module({
  imports: [AuthTypeModule, IdentityModule],
  controllers: [AuthTypeConfigurationController, IdpMappingController],
  providers: [AuthTypeConfigurationService, IdpMappingService, HybridAdminTeamService, AuthTypeChangeNotifier],
})
export class AuthTypeAdminModule {}
