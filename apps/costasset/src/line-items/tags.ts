export interface Tag {
  group: string;
  key: string;
  value: string;
}

export const DEFAULT_TAG_GROUP = 'default';

/**
 * A FOCUS tag key `group:key` or `group/key` splits at its first separator into group and key;
 * a plain key belongs to the group `default`. Values are kept as strings (JSON numbers and
 * booleans are stringified). Throws on anything that is not a JSON object.
 */
export function splitTags(raw: string | undefined): Tag[] {
  if (raw === undefined || raw.trim() === '') return [];
  const parsed: unknown = JSON.parse(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('Tags must be a JSON object');
  const tags: Tag[] = [];
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (value !== null && typeof value === 'object') throw new Error(`tag ${name} must have a scalar value`);
    const at = name.search(/[:/]/);
    const group = at > 0 ? name.slice(0, at) : DEFAULT_TAG_GROUP;
    const key = at > 0 ? name.slice(at + 1) : name;
    tags.push({ group, key, value: value === null ? '' : String(value) });
  }
  return tags;
}
