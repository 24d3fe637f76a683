export * from './ast';
export * from './errors';
export * from './parser';
export * from './printer';
export * from './compiler';
export * from './problem';
export * from './filter-evaluator';
export { Tokenizer, describeToken } from './tokenizer';
export type { Token, Punctuator } from './tokenizer';
