export * from './problem';
export * from './health';
export * from './logging';
export * from './swagger';
export * from './input';
export * from './validation';
export * from './traffic';
export * from './create-http-app';
