import { compileFilePattern } from './file-pattern';

describe('compileFilePattern', () => {
  it('matches globs segment by segment', () => {
    const csv = compileFilePattern('*.csv');
    expect(['a.csv', 'usage-1.csv'].every((path) => csv.test(path))).toBe(true);
    expect(csv.test('sub/a.csv')).toBe(false);
    const deep = compileFilePattern('**/*.csv');
    expect(['a.csv', 'x/a.csv', 'x/y/a.csv'].every((path) => deep.test(path))).toBe(true);
    expect(deep.test('a.txt')).toBe(false);
    expect(compileFilePattern('usage-??.csv').test('usage-01.csv')).toBe(true);
    expect(compileFilePattern('a+b.csv').test('aab.csv')).toBe(false);
  });

  it('takes a regular expression between slashes', () => {
    const pattern = compileFilePattern('/^usage-\\d+\\.csv$/i');
    expect(pattern.test('USAGE-12.csv')).toBe(true);
    expect(pattern.test('usage-x.csv')).toBe(false);
  });

  it('throws on a broken regular expression, and on what RE2 does not do (backreferences, lookaround)', () => {
    expect(() => compileFilePattern('/([/')).toThrow();
    expect(() => compileFilePattern('/(a)\\1/')).toThrow();
    expect(() => compileFilePattern('/a(?=b)/')).toThrow();
  });

  it('answers a catastrophic-backtracking pattern in linear time', () => {
    const evil = compileFilePattern('/^(a+)+$/');
    const path = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    expect(evil.test(path)).toBe(false);
    // a JavaScript RegExp would not finish on 30 characters in the age of the universe
    expect(performance.now() - started).toBeLessThan(1000);
    const glob = compileFilePattern(`${'*a'.repeat(30)}*.csv`);
    expect(glob.test(`${'a'.repeat(5000)}.txt`)).toBe(false);
  });
});
