export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Whether a zip entry name may become part of an object key: relative, forward slashes only, no
 * `.`/`..`/empty segments, no control characters. Folder entries end with `/`.
 */
export function isSafeEntryPath(name: string): boolean {
  if (!name || name.length > 512) return false;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\') || hasControlCharacter(name)) return false;
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  return segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** yauzl refuses unsafe names itself while listing; these are its messages for them. */
export function isUnsafePathError(error: unknown): boolean {
  return /^(absolute path|invalid relative path|invalid characters in fileName)/.test((error as Error)?.message ?? '');
}
