export interface Tag {
  group: string;
  key: string;
  /** Always a string, so that `tag('g', 'k' == 'v')` compares strings. */
  value: string;
  /** The original key when it was split into group and key (`team:owner`). */
  name?: string;
  /** The JSON type of the value when it was not a string (`true` for a key without a value). */
  type?: 'boolean' | 'number' | 'null';
}

export const DEFAULT_TAG_GROUP = 'default';

/**
 * A FOCUS tag key `group:key` or `group/key` splits at its first separator into group and key;
 * a plain key belongs to the group `default`. Values are kept as strings, and the original key
 * and JSON type are kept beside them so that `joinTags` gives the very object back. Accepts the
 * JSON text of a CSV cell or the object of a Parquet MAP; throws on anything but an object of
 * scalars.
 */
export function splitTags(raw: string | object | undefined | null): Tag[] {
  if (raw === undefined || raw === null) return [];
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return [];
    parsed = JSON.parse(raw);
  } else if (raw instanceof Map) {
    parsed = Object.fromEntries(raw);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('Tags must be a JSON object');
  const tags: Tag[] = [];
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (value !== null && typeof value === 'object') throw new Error(`tag ${name} must have a scalar value`);
    const at = separatorOf(name);
    const group = at > 0 ? name.slice(0, at) : DEFAULT_TAG_GROUP;
    const key = at > 0 ? name.slice(at + 1) : name;
    const tag: Tag = { group, key, value: value === null ? '' : String(value) };
    if (at > 0) tag.name = name;
    if (value === null) tag.type = 'null';
    else if (typeof value === 'boolean') tag.type = 'boolean';
    else if (typeof value === 'number' || typeof value === 'bigint') tag.type = 'number';
    tags.push(tag);
  }
  return tags;
}

/** The first `:` or `/` of a tag key (-1: none), as `name.search(/[:/]/)` without the regular expression. */
function separatorOf(name: string): number {
  const colon = name.indexOf(':');
  const slash = name.indexOf('/');
  return colon < 0 ? slash : slash < 0 ? colon : Math.min(colon, slash);
}

/** The FOCUS Tags object of stored tags (the inverse of `splitTags`). */
export function joinTags(tags: readonly Tag[]): Record<string, string | number | boolean | null> {
  const joined: Record<string, string | number | boolean | null> = {};
  for (const tag of tags) {
    const name = tag.name ?? (tag.group === DEFAULT_TAG_GROUP ? tag.key : `${tag.group}:${tag.key}`);
    joined[name] =
      tag.type === 'null' ? null : tag.type === 'boolean' ? tag.value === 'true' : tag.type === 'number' ? Number(tag.value) : tag.value;
  }
  return joined;
}

/**
 * An aggregation expression: the value of a document's first tag with this group and key, `null`
 * without one (line items and rollup rows alike). Literals never become field paths.
 */
export function tagValueExpression(group: string, key: string): unknown {
  const matching = {
    $filter: {
      input: { $ifNull: ['$tags', []] },
      as: 'tag',
      cond: { $and: [{ $eq: ['$$tag.group', { $literal: group }] }, { $eq: ['$$tag.key', { $literal: key }] }] },
    },
  };
  return { $let: { vars: { tag: { $arrayElemAt: [matching, 0] } }, in: { $ifNull: ['$$tag.value', null] } } };
}
