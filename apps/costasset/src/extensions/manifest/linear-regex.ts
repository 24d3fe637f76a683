import { RE2JS } from 're2js';

const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL, m: RE2JS.MULTILINE };

/**
 * The regular expressions of a manifest's JSONata mappings (`$match(x, /…/)`, `$replace`, …),
 * run by re2js in time linear in the input: JSONata's timeout is checked between evaluation
 * steps and cannot stop a backtracking JavaScript RegExp. JSONata sets `lastIndex` and calls
 * `exec`, as on a global RegExp; that is all it uses. RE2 syntax: no backreferences or lookaround.
 */
export class LinearRegex {
  lastIndex = 0;
  private readonly re: RE2JS;

  constructor(source: RegExp | string) {
    const flags = typeof source === 'string' ? '' : source.flags;
    this.re = RE2JS.compile(
      typeof source === 'string' ? source : source.source,
      [...flags].reduce((all, flag) => all | (FLAGS[flag] ?? 0), 0),
    );
  }

  exec(input: string): RegExpExecArray | null {
    const matcher = this.re.matcher(input);
    if (this.lastIndex > input.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups = Array.from({ length: matcher.groupCount() + 1 }, (_, group) => matcher.group(group) ?? undefined);
    this.lastIndex = matcher.end();
    return Object.assign(groups, { index: matcher.start(), input }) as unknown as RegExpExecArray;
  }
}

/** For jsonata's `RegexEngine` option, typed as the RegExp constructor it replaces. */
export const LINEAR_REGEX_ENGINE = LinearRegex as unknown as RegExpConstructor;

/** Every regular expression literal of a parsed JSONata expression (its `ast()`). */
export function regexLiterals(node: unknown, found: RegExp[] = []): RegExp[] {
  if (node instanceof RegExp) found.push(node);
  else if (Array.isArray(node)) for (const item of node) regexLiterals(item, found);
  else if (node && typeof node === 'object') for (const value of Object.values(node)) regexLiterals(value, found);
  return found;
}
