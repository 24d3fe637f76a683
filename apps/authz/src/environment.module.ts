import { DynamicModule, Global, Module } from '@nestjs/common';
import { AuthzEnvironment } from './authz.environment';

@Global()
@Module({})
export class EnvironmentModule {
  static register(env: AuthzEnvironment): DynamicModule {
    return { module: EnvironmentModule, providers: [{ provide: AuthzEnvironment, useValue: env }], exports: [AuthzEnvironment] };
  }
}
