import { ProblemException } from '@lib/core';

export interface JsonLimits {
  /** Deepest nesting of arrays and objects. */
  maxDepth: number;
  /** Most items of one array. */
  maxArrayLength: number;
  /** Most characters of one string, keys included. */
  maxStringLength: number;
}

/** Keys that reach an object's prototype when a library merges or assigns parsed input. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text nests arrays and objects deeper than `maxDepth`, read on the raw text
 * before any parser builds (and any validator recurses through) the value. Brackets inside
 * strings do not count. UTF-8 bytes and UTF-16 code units both work: every byte of a multi-byte
 * UTF-8 sequence is above 0x7f, so it can never be taken for a bracket or a quote.
 */
export function nestsDeeperThan(text: Uint8Array | string, maxDepth: number): boolean {
  const codeAt = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i];
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = codeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

export function tooDeep(what: string, maxDepth: number): ProblemException {
  return new ProblemException(400, 'INPUT_TOO_DEEP', `The ${what} nests deeper than ${maxDepth} levels`);
}

const pathOf = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;

/**
 * The first parsed value beyond the limits, as the problem to answer: an array longer than
 * `maxArrayLength` or a string longer than `maxStringLength` (413), or a prototype key (400), with
 * where it is (`$.items[3].name`). `undefined` when the value is within them. Depth is known to be
 * bounded here (checked before parsing), so the walk may recurse.
 */
export function checkParsed(
  value: unknown,
  limits: Omit<JsonLimits, 'maxDepth'>,
  what = 'request body',
  path = '$',
): ProblemException | undefined {
  if (typeof value === 'string') {
    return value.length > limits.maxStringLength
      ? new ProblemException(
          413,
          'INPUT_STRING_TOO_LONG',
          `A string of the ${what} is longer than ${limits.maxStringLength} characters (at ${path})`,
        )
      : undefined;
  }
  if (Array.isArray(value)) {
    if (value.length > limits.maxArrayLength) {
      return new ProblemException(
        413,
        'INPUT_ARRAY_TOO_LONG',
        `An array of the ${what} holds more than ${limits.maxArrayLength} items (at ${path})`,
      );
    }
    for (let i = 0; i < value.length; i++) {
      const problem = checkParsed(value[i], limits, what, pathOf(path, i));
      if (problem) return problem;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (PROTOTYPE_KEYS.has(key)) {
        return new ProblemException(400, 'INPUT_KEY_REFUSED', `The ${what} may not use the key "${key}" (at ${path})`);
      }
      if (key.length > limits.maxStringLength) {
        return new ProblemException(
          413,
          'INPUT_STRING_TOO_LONG',
          `A key of the ${what} is longer than ${limits.maxStringLength} characters (at ${path})`,
        );
      }
      const problem = checkParsed((value as Record<string, unknown>)[key], limits, what, pathOf(path, key));
      if (problem) return problem;
    }
  }
  return undefined;
}
