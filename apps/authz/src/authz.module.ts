import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule, PrincipalResolver } from '@lib/auth';
import { HealthModule, LoggingModule } from '@lib/http';
import { MessagingModule, NatsReadinessProbe } from '@lib/messaging';
import { DatabaseModule, MongoReadinessProbe } from '@lib/persistence';
import { AuditModule } from './audit/audit.module';
import { AuthzEnvironment } from './authz.environment';
import { EnvironmentModule } from './environment.module';
import { IdentityModule } from './identity/identity.module';
import { PrincipalService } from './identity/principal.service';
import { localVerifierProvider } from './token/signing-key.provider';
import { SigningKeyModule } from './token/signing-key.module';
import { TokenModule } from './token/token.module';

/** The authorization and core-configuration service ("core"). */
@Module({})
export class AuthzModule {
  static forRoot(env: AuthzEnvironment): DynamicModule {
    return {
      module: AuthzModule,
      imports: [
        EnvironmentModule.register(env),
        LoggingModule.forRoot({ service: 'authz', level: env.LOG_LEVEL }),
        DatabaseModule.forRoot(env.MONGODB_URI, 'authz'),
        MessagingModule.forRoot({ servers: env.NATS_URL, name: 'authz', requestTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS, namespace: env.NATS_NAMESPACE }),
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
      ],
    };
  }
}
