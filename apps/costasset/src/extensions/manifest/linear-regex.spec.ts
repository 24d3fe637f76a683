import jsonata from 'jsonata';
import { LINEAR_REGEX_ENGINE, regexLiterals } from './linear-regex';

/** The result as plain JSON (JSONata marks its sequences with extra properties). */
const evaluate = async (expression: string, input: unknown) =>
  JSON.parse(JSON.stringify(await jsonata(expression, { RegexEngine: LINEAR_REGEX_ENGINE }).evaluate(input))) as unknown;

describe('LinearRegex in JSONata mappings', () => {
  it('matches, replaces, splits and tests as JavaScript regular expressions do', async () => {
    expect(await evaluate('$match(s, /(\\d+)-(\\d+)/)', { s: 'a 12-34 b 5-6' })).toEqual([
      { match: '12-34', index: 2, groups: ['12', '34'] },
      { match: '5-6', index: 10, groups: ['5', '6'] },
    ]);
    expect(await evaluate('$match(s, /\\d+/).match', { s: '1 22 333' })).toEqual(['1', '22', '333']);
    expect(await evaluate('$replace(s, /usage-(\\d+)/i, "u$1")', { s: 'USAGE-7.csv' })).toBe('u7.csv');
    expect(await evaluate('$split(s, /[,;]/)', { s: 'a,b;c' })).toEqual(['a', 'b', 'c']);
    expect(await evaluate('$contains(s, /^acc-/)', { s: 'acc-1' })).toBe(true);
    expect(await evaluate('s ~> /x/ ? 1 : 0', { s: 'y' })).toBe(0);
  });

  it('finishes a catastrophic-backtracking pattern on a long input quickly', async () => {
    const started = performance.now();
    expect(await evaluate('$contains(s, /^(a+)+$/)', { s: `${'a'.repeat(50_000)}!` })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('finds every regex literal of an expression', () => {
    expect(regexLiterals(jsonata('$match(a, /x+/) & $replace(b, /(y)\\1/, "")').ast()).map(String)).toEqual(['/x+/g', '/(y)\\1/g']);
  });
});
