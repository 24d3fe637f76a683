export * from './to-problem';
export * from './problem.filter';
export * from './validation.pipe';
