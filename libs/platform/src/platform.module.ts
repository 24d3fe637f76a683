import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { CommonEnvironment } from '@lib/config';
import { LoggingModule, TrafficModule } from '@lib/http';
import { MessagingModule } from '@lib/messaging';
import { MetricsModule } from '@lib/metrics';
import { DatabaseModule } from '@lib/persistence';

/**
 * What every service stands on: its validated environment (injectable under its own class and as
 * CommonEnvironment), structured logging, metrics, admission control, the MongoDB connection (with
 * its time limits) and the NATS connection.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(service: string, env: CommonEnvironment): DynamicModule {
    const environmentClass = env.constructor as Type<CommonEnvironment>;
    return {
      module: PlatformModule,
      imports: [
        LoggingModule.forRoot({ service, level: env.LOG_LEVEL, instance: env.INSTANCE_ID }),
        MetricsModule.forRoot(service),
        TrafficModule.forRoot({
          maxInFlight: env.HTTP_MAX_IN_FLIGHT,
          maxHeavyInFlight: env.HTTP_MAX_HEAVY_IN_FLIGHT,
          metricsPort: env.METRICS_PORT,
          metricsHost: env.METRICS_HOST,
        }),
        DatabaseModule.forRoot(env.MONGODB_URI, service, {
          autoIndex: env.MONGODB_AUTO_INDEX,
          timeLimits: {
            read: env.MONGODB_MAX_TIME_READ_MS,
            aggregate: env.MONGODB_MAX_TIME_AGGREGATE_MS,
            write: env.MONGODB_MAX_TIME_WRITE_MS,
            bulk: env.MONGODB_MAX_TIME_BULK_MS,
          },
        }),
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          name: service,
          requestTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS,
          namespace: env.NATS_NAMESPACE,
          user: env.NATS_USER,
          password: env.NATS_PASSWORD,
        }),
      ],
      providers: [
        { provide: environmentClass, useValue: env },
        { provide: CommonEnvironment, useValue: env },
      ],
      exports: [environmentClass, CommonEnvironment],
    };
  }
}
