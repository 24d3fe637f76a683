export * from './start-tracing';
export * from './tracing-environment';
export * from './trace-api';
export * from './trace-carrier';
export * from './spans';
export * from './server-span';
