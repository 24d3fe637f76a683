import { DynamicModule, Module } from '@nestjs/common';
import { AccessTokenVerifier, AuthModule, PrincipalResolver, TokenVerifier } from '@lib/auth';
import { HealthModule, LoggingModule } from '@lib/http';
import { MessagingModule, NatsReadinessProbe } from '@lib/messaging';
import { DatabaseModule, MongoReadinessProbe } from '@lib/persistence';
import { CostassetEnvironment } from './costasset.environment';
import { CurrencyModule } from './currency/currency.module';
import { EnvironmentModule } from './environment.module';
import { ExtensionsModule } from './extensions/extensions.module';
import { ObjectStoreReadinessProbe } from './object-store/object-store-readiness.probe';
import { ObjectStoreModule } from './object-store/object-store.module';
import { RemotePrincipalResolver } from './principal/remote-principal.resolver';

/** The cost and asset management service. */
@Module({})
export class CostassetModule {
  static forRoot(env: CostassetEnvironment): DynamicModule {
    return {
      module: CostassetModule,
      imports: [
        EnvironmentModule.register(env),
        LoggingModule.forRoot({ service: 'costasset', level: env.LOG_LEVEL }),
        DatabaseModule.forRoot(env.MONGODB_URI, 'costasset'),
        MessagingModule.forRoot({ servers: env.NATS_URL, name: 'costasset', requestTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS, namespace: env.NATS_NAMESPACE }),
        ObjectStoreModule,
        AuthModule.forRoot({
          verifier: { provide: AccessTokenVerifier, useValue: TokenVerifier.withJwks(env.AUTHZ_JWKS_URL, env.JWT_ISSUER) },
          resolver: { provide: PrincipalResolver, useClass: RemotePrincipalResolver },
        }),
        HealthModule.withProbes([MongoReadinessProbe, NatsReadinessProbe, ObjectStoreReadinessProbe]),
        CurrencyModule,
        ExtensionsModule,
      ],
    };
  }
}
