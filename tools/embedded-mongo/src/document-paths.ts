import { isPlainObject, type Document } from './bson-values';

const isIndex = (part: string): boolean => /^\d+$/.test(part);

/** Plain dotted-path read without array traversal (used for `_id` and update checks). */
export function getPath(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split('.')) {
    if (Array.isArray(current) && isIndex(part)) current = current[Number(part)];
    else if (isPlainObject(current)) current = current[part];
    else return undefined;
  }
  return current;
}

/** Sets a dotted path, creating intermediate objects (used to seed upserted documents). */
export function setPath(doc: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  let current: Document = doc;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (!isPlainObject(next)) current[part] = {};
    current = current[part] as Document;
  }
  current[parts[parts.length - 1]] = value;
}

/**
 * Every value a query on `path` compares against, with mongod's implicit array traversal:
 * arrays met on the way are descended element-wise, and an array at the end contributes
 * both itself and its elements. A missing field contributes `undefined` (matches null).
 */
export function valuesForMatch(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  const walk = (current: unknown, parts: string[]): void => {
    if (parts.length === 0) {
      out.push(current);
      if (Array.isArray(current)) out.push(...current);
      return;
    }
    const [head, ...rest] = parts;
    if (Array.isArray(current)) {
      if (isIndex(head)) walk(current[Number(head)], rest);
      for (const item of current) if (isPlainObject(item)) walk(item, parts);
      return;
    }
    if (isPlainObject(current)) walk(current[head], rest);
    else out.push(undefined);
  };
  walk(doc, path.split('.'));
  return out;
}

/** Index key values of one field: arrays expand to their elements (a multikey entry). */
export function indexValues(doc: unknown, path: string): { values: unknown[]; isArray: boolean } {
  const values: unknown[] = [];
  let isArray = false;
  const walk = (current: unknown, parts: string[]): void => {
    if (parts.length === 0) {
      if (Array.isArray(current)) {
        isArray = true;
        if (current.length === 0) values.push(undefined);
        else values.push(...current);
      } else {
        values.push(current);
      }
      return;
    }
    const [head, ...rest] = parts;
    if (Array.isArray(current)) {
      isArray = true;
      if (isIndex(head)) return walk(current[Number(head)], rest);
      if (current.length === 0) values.push(undefined);
      for (const item of current) walk(isPlainObject(item) ? item[head] : undefined, rest);
      return;
    }
    walk(isPlainObject(current) ? current[head] : undefined, rest);
  };
  walk(doc, path.split('.'));
  return { values, isArray };
}
