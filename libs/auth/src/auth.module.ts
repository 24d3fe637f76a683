import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { AccessTokenVerifier, PrincipalResolver } from './principal-resolver';
import { SystemAdminGuard } from './system-admin.guard';

export interface AuthModuleOptions {
  /** Provides `AccessTokenVerifier`. */
  verifier: Provider;
  /** Provides `PrincipalResolver`. */
  resolver: Provider;
  imports?: DynamicModule['imports'];
}

/** Installs the global token guard with this service's verifier and principal resolver. */
@Global()
@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    return {
      module: AuthModule,
      imports: options.imports ?? [],
      providers: [
        options.verifier,
        options.resolver,
        SystemAdminGuard,
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
      exports: [AccessTokenVerifier, PrincipalResolver, SystemAdminGuard],
    };
  }
}
