import { ProblemException } from '@lib/core';
import { checkParsed, nestsDeeperThan } from './json-limits';
import { parseQuery } from './query-parser';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

function problemOf(work: () => unknown): ProblemException {
  try {
    work();
  } catch (error) {
    if (error instanceof ProblemException) return error;
    throw error;
  }
  throw new Error('expected a problem');
}

describe('nestsDeeperThan (raw JSON text, before parsing)', () => {
  it('counts arrays and objects, on bytes and on text', () => {
    expect(nestsDeeperThan(nested(32), 32)).toBe(false);
    expect(nestsDeeperThan(nested(33), 32)).toBe(true);
    expect(nestsDeeperThan(Buffer.from(`{"a":${nested(31, '{"b":', '}')}}`), 32)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(nested(5000)), 32)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`{"a":"${'['.repeat(100)}","b":"\\"${'{'.repeat(100)}"}`, 2)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(`["é€😀${'['.repeat(50)}"]`), 2)).toBe(false);
  });
});

describe('checkParsed (after parsing, before validation)', () => {
  const limits = { maxArrayLength: 3, maxStringLength: 5 };

  it('passes values within the limits', () => {
    expect(checkParsed({ a: ['x', 'yy', { b: 'zzzzz' }] }, limits)).toBeUndefined();
  });

  it('refuses long arrays and strings with 413 and where they are', () => {
    const array = checkParsed({ items: [1, 2, 3, 4] }, limits);
    expect({ status: array?.getStatus(), code: array?.code }).toEqual({ status: 413, code: 'INPUT_ARRAY_TOO_LONG' });
    expect(array?.message).toContain('$.items');
    const text = checkParsed({ a: [{ 'a b': 'toolong' }] }, limits);
    expect({ status: text?.getStatus(), code: text?.code }).toEqual({ status: 413, code: 'INPUT_STRING_TOO_LONG' });
    expect(text?.message).toContain('$.a[0]["a b"]');
    expect(checkParsed({ ['k'.repeat(6)]: 1 }, limits)?.code).toBe('INPUT_STRING_TOO_LONG');
  });

  it('refuses prototype keys anywhere', () => {
    for (const body of ['{"__proto__":{"x":1}}', '{"a":[{"constructor":{"prototype":{}}}]}', '{"prototype":1}']) {
      expect(checkParsed(JSON.parse(body), limits)?.code).toBe('INPUT_KEY_REFUSED');
    }
  });
});

describe('parseQuery', () => {
  const limits = { maxDepth: 2, maxArrayLength: 3, maxParameters: 5, maxStringLength: 10 };

  it('parses nested parameters as the extended parser does', () => {
    expect(parseQuery('a=1&b[c]=2&d[]=x&d[]=y', limits)).toEqual({ a: '1', b: { c: '2' }, d: ['x', 'y'] });
    expect(Object.getPrototypeOf(parseQuery('b[c]=2', limits).b)).toBe(Object.prototype);
  });

  it('refuses what is beyond the limits with 400, instead of cutting it silently', () => {
    expect(problemOf(() => parseQuery('a[b][c][d]=1', limits)).code).toBe('INPUT_TOO_DEEP');
    expect(problemOf(() => parseQuery('a[]=1&a[]=2&a[]=3&a[]=4', limits)).code).toBe('INPUT_ARRAY_TOO_LONG');
    expect(problemOf(() => parseQuery('a[9]=1', limits)).code).toBe('INPUT_ARRAY_TOO_LONG');
    expect(problemOf(() => parseQuery('a=1&b=2&c=3&d=4&e=5&f=6', limits)).code).toBe('INPUT_TOO_MANY_PARAMETERS');
    const long = problemOf(() => parseQuery(`a=${'x'.repeat(11)}`, limits));
    expect({ status: long.getStatus(), code: long.code }).toEqual({ status: 400, code: 'INPUT_STRING_TOO_LONG' });
  });

  it('refuses prototype keys, encoded or not', () => {
    for (const query of ['__proto__[x]=1', '%5F%5Fproto%5F%5F[x]=1', 'a[__proto__]=1', 'constructor[prototype][x]=1']) {
      expect(problemOf(() => parseQuery(query, limits)).code).toBe('INPUT_KEY_REFUSED');
    }
  });

  it('refuses a malformed escape or invalid UTF-8 instead of keeping it as text', () => {
    for (const query of ['a=%E0%A4%A', 'a=%ED%A0%80', '%FF=1', 'a[%C0%AF]=1'])
      expect(problemOf(() => parseQuery(query, limits)).code).toBe('MALFORMED_QUERY');
    expect(parseQuery('a=b+c%20d', limits)).toEqual({ a: 'b c d' });
  });
});
