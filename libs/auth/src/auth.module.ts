import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { AccessTokenVerifier, PrincipalResolver } from './principal-resolver';
import { RouteCatalog } from './route-catalog';

export interface AuthModuleOptions {
  /** Provides `AccessTokenVerifier`. */
  verifier: Provider;
  /** Provides `PrincipalResolver`. */
  resolver: Provider;
  imports?: DynamicModule['imports'];
}

/** Installs the global access guard with this service's verifier and principal resolver, and the route catalog. */
@Global()
@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    return {
      module: AuthModule,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [options.verifier, options.resolver, RouteCatalog, { provide: APP_GUARD, useClass: AuthGuard }],
      exports: [AccessTokenVerifier, PrincipalResolver, RouteCatalog],
    };
  }
}
