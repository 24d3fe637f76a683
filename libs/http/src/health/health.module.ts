import { DynamicModule, Module, Provider } from '@nestjs/common';
import { HealthController } from './health.controller';
import { READINESS_PROBES, ReadinessProbe } from '@lib/core';

type ProbeClass = new (...args: never[]) => ReadinessProbe;

/** `/health/live` and `/health/ready`; readiness asks each probe given here. */
@Module({})
export class HealthModule {
  static withProbes(probes: ProbeClass[], imports: DynamicModule['imports'] = []): DynamicModule {
    const providers: Provider[] = [...probes, { provide: READINESS_PROBES, useFactory: (...all: ReadinessProbe[]) => all, inject: probes }];
    return { module: HealthModule, imports, controllers: [HealthController], providers };
  }
}
