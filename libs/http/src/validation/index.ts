export * from './safe-text';
export * from './nested';
export * from './paging';
