import type { ApiError } from '../api/problem';

/**
 * A problem of an expression field, split the way the forms show it: an INVALID_EXPRESSION (with
 * its position) goes to the expression field, which marks it; any other problem to the form.
 */
export function splitProblem(error: ApiError | undefined): { expression?: ApiError; other?: ApiError } {
  if (!error) return {};
  return error.position !== undefined ? { expression: error } : { other: error };
}

/**
 * The expression text around the error's position: what comes before, the character marked (a
 * space past the end, where a missing token was expected), what comes after. The position is
 * kept within the text.
 */
export function markAt(text: string, position: number): { before: string; marked: string; after: string } {
  const at = Math.min(Math.max(Math.trunc(position) || 0, 0), text.length);
  return { before: text.slice(0, at), marked: text.slice(at, at + 1) || ' ', after: text.slice(at + 1) };
}

/** Whether a key press submits the expression (Enter, but not while an input method composes a character). */
export const submitsOnKey = (key: string, composing = false) => key === 'Enter' && !composing;
