import type { FieldProblem } from '@lib/core';
import { problemAt } from './field-problem';

const PROVIDER_ID = /^[a-z][a-z0-9_-]{0,63}$/;
const MAX_PROVIDERS = 256;

/** `SUPPORTED_CD_PROVIDERS`, `COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS`: distinct lowercase provider identifiers. */
export function providerListProblems(value: unknown): FieldProblem[] {
  if (!Array.isArray(value)) return [problemAt(undefined, 'must be an array of lowercase provider identifiers')];
  if (value.length > MAX_PROVIDERS) return [problemAt(undefined, `must hold at most ${MAX_PROVIDERS} providers`)];
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item !== 'string' || !PROVIDER_ID.test(item)) {
      problems.push(problemAt(index, 'must be a lowercase identifier: a letter, then letters, digits, "_" or "-" (at most 64)'));
    } else if (seen.has(item)) {
      problems.push(problemAt(index, `"${item}" is listed twice`));
    }
    if (typeof item === 'string') seen.add(item);
  });
  return problems;
}
