import { Logger, Module, OnModuleInit } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { IdentityModule } from '../identity/identity.module';
import { Membership } from '../identity/schemas/membership.schema';
import { Org } from '../identity/schemas/org.schema';
import { Team } from '../identity/schemas/team.schema';
import { AuthTypeChangeNotifier } from './auth-type-change.notifier';
import { AuthTypeConfigurationController } from './auth-type-configuration.controller';
import { AuthTypeConfigurationService } from './auth-type-configuration.service';
import { AuthTypeModule } from './auth-type.module';
import { HybridAdminTeamService } from './hybrid-admin-team.service';
import { IdpMappingController } from './idp-mapping.controller';
import { IdpMappingService } from './idp-mapping.service';
import { AuthTypeConfiguration } from './schemas/auth-type-configuration.schema';
import { IdpMapping } from './schemas/idp-mapping.schema';

/** Models whose unique indexes the rules of this module rely on. */
const INDEXED_MODELS = [AuthTypeConfiguration.name, IdpMapping.name, Team.name, Org.name, Membership.name];

/**
 * The HTTP side of auth types (spec A.1 and A.2). Kept apart from AuthTypeModule, which
 * IdentityModule imports for the resolver: this module needs identity's repositories.
 */
@Module({
  imports: [AuthTypeModule, IdentityModule],
  controllers: [AuthTypeConfigurationController, IdpMappingController],
  providers: [AuthTypeConfigurationService, IdpMappingService, HybridAdminTeamService, AuthTypeChangeNotifier],
})
export class AuthTypeAdminModule implements OnModuleInit {
  private readonly logger = new Logger('AuthTypeAdminModule');

  constructor(@InjectConnection() private readonly connection: Connection) {}

  /**
   * Uniqueness (names, one internal, one mapping per IdP and configuration, team codes, external
   * references) is enforced by unique indexes: wait until they exist before serving requests.
   */
  async onModuleInit(): Promise<void> {
    try {
      await Promise.all(INDEXED_MODELS.map((name) => this.connection.models[name]?.init()));
    } catch (error) {
      this.logger.error({ err: (error as Error).message }, 'unique indexes could not be built');
    }
  }
}
