import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule, PrincipalResolver } from '@lib/auth';
import { HealthModule } from '@lib/http';
import { NatsReadinessProbe } from '@lib/messaging';
import { MongoReadinessProbe } from '@lib/persistence';
import { PlatformModule } from '@lib/platform';
import { AuditModule } from './audit/audit.module';
import { AuthzEnvironment } from './authz.environment';
import { AuthTypeAdminModule } from './authtype/auth-type-admin.module';
import { ConfigurationModule } from './configuration/configuration.module';
import { FeatureFlagsModule } from './feature-flags/feature-flags.module';
import { IdentityModule } from './identity/identity.module';
import { PrincipalService } from './identity/principal.service';
import { localVerifierProvider } from './token/signing-key.provider';
import { SigningKeyModule } from './token/signing-key.module';
import { TokenModule } from './token/token.module';
import { UserAccessModule } from './user-access/user-access.module';
import { UserTeamsModule } from './user-teams/user-teams.module';

/** The authorization and core-configuration service ("core"). */
@Module({})
export class AuthzModule {
  static forRoot(env: AuthzEnvironment): DynamicModule {
    return {
      module: AuthzModule,
      imports: [
        PlatformModule.forRoot('authz', env),
        SigningKeyModule,
        AuthModule.forRoot({
          imports: [IdentityModule],
          verifier: localVerifierProvider,
          resolver: { provide: PrincipalResolver, useExisting: PrincipalService },
        }),
        HealthModule.withProbes([MongoReadinessProbe, NatsReadinessProbe]),
        AuditModule,
        IdentityModule,
        TokenModule,
        AuthTypeAdminModule,
        UserTeamsModule,
        UserAccessModule,
        ConfigurationModule,
        FeatureFlagsModule,
      ],
    };
  }
}
