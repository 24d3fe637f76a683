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

  it('throws on a broken regular expression', () => {
    expect(() => compileFilePattern('/([/')).toThrow();
  });
});
