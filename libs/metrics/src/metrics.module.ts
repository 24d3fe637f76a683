import { DynamicModule, Global, Module } from '@nestjs/common';
import { Metrics } from './metrics';

/** The service's one `Metrics` registry, injectable everywhere (rendered by `GET /metrics`, libs/http). */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(service: string): DynamicModule {
    return { module: MetricsModule, providers: [{ provide: Metrics, useValue: new Metrics(service) }], exports: [Metrics] };
  }
}
