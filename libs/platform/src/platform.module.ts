import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { CommonEnvironment } from '@lib/config';
import { LoggingModule } from '@lib/http';
import { MessagingModule } from '@lib/messaging';
import { DatabaseModule } from '@lib/persistence';

/**
 * What every service stands on: its validated environment (injectable under its own class and as
 * CommonEnvironment), structured logging, the MongoDB connection and the NATS connection.
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
        DatabaseModule.forRoot(env.MONGODB_URI, service, { autoIndex: env.MONGODB_AUTO_INDEX }),
        MessagingModule.forRoot({ servers: env.NATS_URL, name: service, requestTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS, namespace: env.NATS_NAMESPACE }),
      ],
      providers: [
        { provide: environmentClass, useValue: env },
        { provide: CommonEnvironment, useValue: env },
      ],
      exports: [environmentClass, CommonEnvironment],
    };
  }
}
