import { isSafeEntryPath, isUnsafePathError } from './entry-path';

describe('isSafeEntryPath', () => {
  it('accepts relative files and folders', () => {
    for (const name of ['a.csv', 'usage/2024-10.csv', 'usage/', 'deep/er/file.name.csv']) expect(isSafeEntryPath(name)).toBe(true);
  });

  it('refuses absolute, parent, dot, empty, backslash and control-character names', () => {
    for (const name of ['', '/etc/passwd', 'C:/x', 'C:x', '../x', 'a/../../x', 'a/./x', 'a//x', 'a\\x', 'a\u0001b', 'x'.repeat(513)])
      expect(isSafeEntryPath(name)).toBe(false);
  });

  it('recognises the refusals of yauzl', () => {
    expect(isUnsafePathError(new Error('invalid relative path: ../x'))).toBe(true);
    expect(isUnsafePathError(new Error('absolute path: /x'))).toBe(true);
    expect(isUnsafePathError(new Error('end of central directory record signature not found'))).toBe(false);
  });
});
