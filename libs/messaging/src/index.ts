export * from './contract';
export * from './nats-connection';
export * from './message-bus';
export * from './invalidating-cache';
export * from './work-queue';
export * from './messaging.module';
export * from './nats-readiness.probe';
export * from './payload';
