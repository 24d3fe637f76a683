import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AdmissionControl, AdmissionOptions } from './admission';
import { MetricsController } from './metrics.controller';
import { MetricsListener, MetricsListenerOptions } from './metrics-listener';

export interface TrafficOptions {
  maxInFlight: number;
  maxHeavyInFlight: number;
  /** `METRICS_PORT`: `/metrics` on a listener of its own instead of the service's port. */
  metricsPort?: number;
  metricsHost: string;
}

/** Admission control and the `GET /metrics` route (with its own listener when asked). */
@Global()
@Module({})
export class TrafficModule {
  static forRoot(options: TrafficOptions): DynamicModule {
    return {
      module: TrafficModule,
      imports: [DiscoveryModule],
      controllers: [MetricsController],
      providers: [
        { provide: AdmissionOptions, useValue: { maxInFlight: options.maxInFlight, maxHeavyInFlight: options.maxHeavyInFlight } },
        { provide: MetricsListenerOptions, useValue: { port: options.metricsPort, host: options.metricsHost } },
        AdmissionControl,
        MetricsListener,
      ],
      exports: [AdmissionControl, MetricsListenerOptions],
    };
  }
}
