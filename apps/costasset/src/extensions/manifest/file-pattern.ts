import { RE2JS } from 're2js';

/** A compiled `input.filePattern`: `test` answers in time linear in the path, whatever the pattern. */
export interface FilePattern {
  test(path: string): boolean;
}

const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL, m: RE2JS.MULTILINE, u: 0 };

/**
 * `input.filePattern` of a manifest, matched against paths relative to the expanded folder: a
 * glob (`*` within a segment, `**` across segments, `?` one character) or, between slashes, a
 * regular expression (`/^usage-\d+\.csv$/i`) in RE2 syntax. Both run on re2js, a linear-time
 * engine without backtracking (no backreferences or lookaround), so no pattern an extension
 * carries can hold the event loop: a JavaScript RegExp cannot be interrupted once it runs.
 */
export function compileFilePattern(pattern: string): FilePattern {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (regex) {
    const unknown = [...regex[2]].filter((flag) => !(flag in FLAGS) && flag !== 'g' && flag !== 'y');
    if (unknown.length) throw new Error(`unknown flag(s) ${unknown.join('')}: i, s, m and u are known`);
    const flags = [...regex[2]].reduce((all, flag) => all | (FLAGS[flag] ?? 0), 0);
    return RE2JS.compile(regex[1], flags);
  }
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '*' && pattern[index + 1] === '*') {
      const slash = pattern[index + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      index += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += RE2JS.quote(char);
  }
  return RE2JS.compile(`^${source}$`, RE2JS.DOTALL);
}
