export * from './always-served';
export * from './heavy-route';
export * from './admission';
export * from './traffic.middleware';
export * from './traffic.module';
export * from './metrics.controller';
export * from './metrics-listener';
