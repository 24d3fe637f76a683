/**
 * `input.filePattern` of a manifest, matched against paths relative to the expanded folder: a
 * glob (`*` within a segment, `**` across segments, `?` one character) or, between slashes, a
 * regular expression (`/^usage-\d+\.csv$/`).
 */
export function compileFilePattern(pattern: string): RegExp {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (regex) return new RegExp(regex[1], regex[2].replace(/[gy]/g, ''));
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '*' && pattern[index + 1] === '*') {
      const slash = pattern[index + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      index += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
