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
 * The HTTP side of auth types (spec A.1 and A.2). Kept apart from AuthTypeModule, which
 * IdentityModule imports for the resolver: this module needs identity's repositories.
 */
@Module({
  imports: [AuthTypeModule, IdentityModule],
  controllers: [AuthTypeConfigurationController, IdpMappingController],
  providers: [AuthTypeConfigurationService, IdpMappingService, HybridAdminTeamService, AuthTypeChangeNotifier],
})
export class AuthTypeAdminModule {}
