import type { FieldProblem } from '@lib/core';
import { unsafeTextReason } from '@lib/http';
import { problemAt } from './field-problem';

export const MAX_VALUE_BYTES = 64 * 1024;

const textProblem = (text: string, index?: number) => {
  const reason = unsafeTextReason(text, true);
  return reason ? [problemAt(index, reason)] : [];
};

/** Any key without rules of its own: safe text (line breaks allowed) or an array of it, at most 64 KiB of UTF-8 in all. */
export function genericValueProblems(value: unknown): FieldProblem[] {
  if (typeof value === 'string') {
    return Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES ? [problemAt(undefined, 'must be at most 64 KiB')] : textProblem(value);
  }
  if (!Array.isArray(value)) return [problemAt(undefined, 'must be a string or an array of strings')];
  const problems = value.flatMap((item: unknown, index) =>
    typeof item === 'string' ? textProblem(item, index) : [problemAt(index, 'must be a string')],
  );
  if (problems.length > 0) return problems;
  const bytes = (value as string[]).reduce((total, item) => total + Buffer.byteLength(item, 'utf8'), 0);
  return bytes > MAX_VALUE_BYTES ? [problemAt(undefined, 'must be at most 64 KiB in all')] : [];
}
