export * from './readiness-probe';
export * from './health.module';
