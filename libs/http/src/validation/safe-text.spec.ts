import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { IsSafeText, unsafeTextReason } from './safe-text';

class Named {
  @IsSafeText(10)
  name: string;

  @IsSafeText(20, { multiline: true, allowEmpty: true })
  note: string;

  @IsSafeText(5, { each: true })
  tags: string[];
}

const problems = (value: object) =>
  validateSync(plainToInstance(Named, { name: 'ok', note: '', tags: [], ...value })).map((error) => [
    error.property,
    Object.keys(error.constraints ?? {}),
  ]);

describe('IsSafeText', () => {
  it('accepts ordinary text, accents, emoji and line breaks where allowed', () => {
    expect(problems({ name: 'Zürich 😀', note: 'line 1\n\tline 2\r\n', tags: ['a', 'b'] })).toEqual([]);
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['a control character', 'a\u001bb'],
    ['DEL', 'a\u007f'],
    ['a C1 control', 'a\u0085'],
    ['U+FFFF', 'a\uffff'],
    ['U+FFFE', '\ufffe'],
    ['a lone high surrogate', 'a\ud800'],
    ['a lone low surrogate', '\udc00a'],
    ['a line break in a one-line field', 'a\nb'],
  ])('refuses %s', (_label, text) => {
    expect(problems({ name: text })).toEqual([['name', ['safeText']]]);
    expect(unsafeTextReason(text)).toBeDefined();
  });

  it('bounds the length, refuses empty and non-strings, and checks each item of a list', () => {
    expect(problems({ name: 'x'.repeat(11) })).toEqual([['name', ['maxLength']]]);
    expect(problems({ name: '' })).toEqual([['name', ['isNotEmpty']]]);
    expect(problems({ name: 5 })[0][1]).toContain('isString');
    expect(problems({ tags: ['ok', 'a\u0000'] })).toEqual([['tags', ['safeText']]]);
    expect(problems({ note: 'a\u0000' })).toEqual([['note', ['safeText']]]);
  });
});
