export * from './problem';
export * from './health';
export * from './logging';
export * from './swagger';
export * from './create-http-app';
