export * from './load-environment';
export * from './common-environment';
export * from './secrets';
