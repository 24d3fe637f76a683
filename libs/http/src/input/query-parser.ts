import { parse } from 'qs';
import { ProblemException } from '../problem/problem';
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

/** The decoded name of each `name=value` pair (a malformed escape is kept as it is, as qs does). */
function parameterNames(queryString: string): string[] {
  return queryString.split('&').map((pair) => {
    const name = pair.split('=', 1)[0].replace(/\+/g, ' ');
    try {
      return decodeURIComponent(name);
    } catch (error) {
      if (!(error instanceof URIError)) throw error;
      return name;
    }
  });
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
 * turned into objects, and prototype keys (`__proto__[x]`, `constructor[prototype]`) are refused
 * instead of silently dropped, so that what the handler sees is exactly what was sent.
 */
export function parseQuery(queryString: string, limits: QueryLimits): Record<string, unknown> {
  // qs drops `__proto__` keys whatever its options say; refuse them like any other prototype key
  if (parameterNames(queryString).some((name) => name.includes('__proto__'))) {
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
    }) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    if (/depth/i.test(error.message)) throw tooDeep('query string', limits.maxDepth);
    if (/array/i.test(error.message)) {
      throw new ProblemException(400, 'INPUT_ARRAY_TOO_LONG', `An array of the query string holds more than ${limits.maxArrayLength} items`);
    }
    throw new ProblemException(400, 'INPUT_TOO_MANY_PARAMETERS', `The query string holds more than ${limits.maxParameters} parameters`);
  }
  const problem = checkParsed(parsed, { maxArrayLength: limits.maxArrayLength, maxStringLength: limits.maxStringLength }, 'query string');
  if (problem) throw problem.getStatus() === 413 ? new ProblemException(400, problem.code, problem.message) : problem;
  return plain(parsed) as Record<string, unknown>;
}
