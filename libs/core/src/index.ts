/**
 * @lib/core: the ground floor every other library stands on; it imports no other library.
 * What several libraries share: problems (the errors callers see), the page of a list, the
 * request context, the readiness-probe contract, the public-route marker and the route list,
 * and duplicate-key detection. The layering is in docs/decisions.md ("Libraries and their layers").
 */
export * from './problem';
export * from './paged';
export * from './request-context';
export * from './readiness-probe';
export * from './public-route';
export * from './routes';
export * from './duplicate-key';
