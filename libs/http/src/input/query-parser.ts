import { parse } from 'qs';
import { ProblemException } from '@lib/core';
import { checkParsed, tooDeep } from './json-limits';

export interface QueryLimits {
  /** Deepest bracket nesting (`a[b][c]` is 2). */
  maxDepth: number;
  /** Most items of one array (`a[]=1&a[]=2`, or indexes `a[0]`). */
  maxArrayLength: number;
  /** Most `name=value` pairs. */
  maxParameters: number;
  /** Most characters of one name or value. */
  maxStringLength: number;
}

const malformed = () => new ProblemException(400, 'MALFORMED_QUERY', 'The query string holds a malformed percent-encoding');

/** `decodeURIComponent` with `+` as a space; a malformed escape (or one of invalid UTF-8) is a 400, never kept as literal text. */
function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch (error) {
    if (error instanceof URIError) throw malformed();
    throw error;
  }
}

/** Null-prototype objects from qs become plain objects again once they are checked. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  }
  return value;
}

/**
 * The query string as nested objects (qs, as Express's `extended` parser), within limits:
 * deeper nesting, longer arrays or more parameters are a 400 instead of being silently cut or
 * turned into objects, prototype keys (`__proto__[x]`, `constructor[prototype]`) are refused
 * instead of silently dropped, and a malformed percent-encoding is refused instead of being kept
 * as literal text, so that what the handler sees is exactly what was sent.
 */
export function parseQuery(queryString: string, limits: QueryLimits): Record<string, unknown> {
  // qs drops `__proto__` keys whatever its options say; refuse them like any other prototype key
  if (queryString.split('&').some((pair) => decodeComponent(pair.split('=', 1)[0]).includes('__proto__'))) {
    throw new ProblemException(400, 'INPUT_KEY_REFUSED', 'The query string may not use the key "__proto__"');
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(queryString, {
      depth: limits.maxDepth,
      strictDepth: true,
      arrayLimit: limits.maxArrayLength,
      parameterLimit: limits.maxParameters,
      throwOnLimitExceeded: true,
      allowPrototypes: true,
      plainObjects: true,
      decoder: decodeComponent,
    }) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    if (/depth/i.test(error.message)) throw tooDeep('query string', limits.maxDepth);
    if (/array/i.test(error.message)) {
      throw new ProblemException(
        400,
        'INPUT_ARRAY_TOO_LONG',
        `An array of the query string holds more than ${limits.maxArrayLength} items`,
      );
    }
    throw new ProblemException(400, 'INPUT_TOO_MANY_PARAMETERS', `The query string holds more than ${limits.maxParameters} parameters`);
  }
  const problem = checkParsed(parsed, { maxArrayLength: limits.maxArrayLength, maxStringLength: limits.maxStringLength }, 'query string');
  if (problem) throw problem.getStatus() === 413 ? new ProblemException(400, problem.code, problem.message) : problem;
  return plain(parsed) as Record<string, unknown>;
}
