import { DynamicModule, Global, Module } from '@nestjs/common';
import { MessageBus } from './message-bus';
import { NatsConnectionProvider, NatsOptions } from './nats-connection';
import { NatsReadinessProbe } from './nats-readiness.probe';

@Global()
@Module({})
export class MessagingModule {
  static forRoot(options: NatsOptions): DynamicModule {
    return {
      module: MessagingModule,
      providers: [{ provide: NatsOptions, useValue: options }, NatsConnectionProvider, MessageBus, NatsReadinessProbe],
      exports: [NatsConnectionProvider, MessageBus, NatsReadinessProbe],
    };
  }
}
