import type { FieldProblem } from '@lib/http';
import { problemAt } from './field-problem';

export const MAX_VALUE_BYTES = 64 * 1024;

/** Any key without rules of its own: a string or an array of strings, at most 64 KiB of UTF-8 in all. */
export function genericValueProblems(value: unknown): FieldProblem[] {
  if (typeof value === 'string') {
    return Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES ? [problemAt(undefined, 'must be at most 64 KiB')] : [];
  }
  if (!Array.isArray(value)) return [problemAt(undefined, 'must be a string or an array of strings')];
  const problems = value.flatMap((item: unknown, index) => (typeof item === 'string' ? [] : [problemAt(index, 'must be a string')]));
  if (problems.length > 0) return problems;
  const bytes = (value as string[]).reduce((total, item) => total + Buffer.byteLength(item, 'utf8'), 0);
  return bytes > MAX_VALUE_BYTES ? [problemAt(undefined, 'must be at most 64 KiB in all')] : [];
}
