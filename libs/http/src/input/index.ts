export * from './json-limits';
export * from './query-parser';
export * from './input-limits';
export * from './declared-inputs.guard';
