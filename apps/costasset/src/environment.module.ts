import { DynamicModule, Global, Module } from '@nestjs/common';
import { CostassetEnvironment } from './costasset.environment';

@Global()
@Module({})
export class EnvironmentModule {
  static register(env: CostassetEnvironment): DynamicModule {
    return { module: EnvironmentModule, providers: [{ provide: CostassetEnvironment, useValue: env }], exports: [CostassetEnvironment] };
  }
}
