import { deepClone, isPlainObject, type Document } from './bson-values';
import { addNumbers, averageNumbers } from './decimal-math';
import { encodeValue } from './key-encoding';

/**
 * The `$group` shapes reports use, computed here in one pass instead of through mingo (which
 * evaluates every expression per document and is ~20x slower): `_id` a constant, `'$field'` or
 * `{name: '$field', ...}` of top-level fields, and accumulators `$sum` / `$avg` of a top-level
 * field or a constant. The results are those of the general path: same groups in the same order,
 * sums and averages from the same exact arithmetic over the values in document order.
 */

const TOP_LEVEL_FIELD = /^\$[^$.][^.]*$/;

type FieldRef = string;

function fieldOf(expression: unknown): FieldRef | null {
  return typeof expression === 'string' && TOP_LEVEL_FIELD.test(expression) ? expression.slice(1) : null;
}

type IdSpec = { kind: 'constant'; value: unknown } | { kind: 'field'; field: string } | { kind: 'object'; fields: Array<[string, string]> };

function idSpec(expression: unknown): IdSpec | null {
  if (expression === null || typeof expression === 'number' || typeof expression === 'boolean') return { kind: 'constant', value: expression };
  if (typeof expression === 'string') {
    if (!expression.startsWith('$')) return { kind: 'constant', value: expression };
    const field = fieldOf(expression);
    return field ? { kind: 'field', field } : null;
  }
  if (isPlainObject(expression) && Object.keys(expression).length > 0) {
    const fields: Array<[string, string]> = [];
    for (const [name, inner] of Object.entries(expression)) {
      const field = fieldOf(inner);
      if (!field || name.startsWith('$') || name.includes('.')) return null;
      fields.push([name, field]);
    }
    return { kind: 'object', fields };
  }
  return null;
}

type Accumulator = { name: string; op: '$sum' | '$avg'; field: string | null; constant: number };

function accumulatorOf(name: string, spec: unknown): Accumulator | null {
  if (!isPlainObject(spec) || Object.keys(spec).length !== 1) return null;
  const [op] = Object.keys(spec);
  if (op !== '$sum' && op !== '$avg') return null;
  const argument = spec[op];
  if (typeof argument === 'number' && op === '$sum') return { name, op, field: null, constant: argument };
  const field = fieldOf(argument);
  return field ? { name, op, field, constant: 0 } : null;
}

function groupId(spec: IdSpec, doc: Document): unknown {
  if (spec.kind === 'constant') return spec.value;
  if (spec.kind === 'field') return doc[spec.field] ?? null;
  const id: Document = {};
  for (const [name, field] of spec.fields) if (doc[field] !== undefined) id[name] = doc[field];
  return id;
}

/** A function computing the stage, or null when the stage is not one of these shapes. */
export function fastGroup(stage: Document): ((docs: Document[]) => Document[]) | null {
  const group = stage.$group;
  if (Object.keys(stage).length !== 1 || !isPlainObject(group) || !('_id' in group)) return null;
  const id = idSpec(group._id);
  if (!id) return null;
  const accumulators: Accumulator[] = [];
  for (const [name, spec] of Object.entries(group)) {
    if (name === '_id') continue;
    const accumulator = accumulatorOf(name, spec);
    if (!accumulator) return null;
    accumulators.push(accumulator);
  }
  return (docs) => {
    const groups = new Map<string, { id: unknown; count: number; values: unknown[][] }>();
    for (const doc of docs) {
      const value = groupId(id, doc);
      const key = encodeValue(value);
      let entry = groups.get(key);
      if (!entry) groups.set(key, (entry = { id: value, count: 0, values: accumulators.map(() => []) }));
      entry.count++;
      for (let i = 0; i < accumulators.length; i++) {
        const field = accumulators[i].field;
        if (field !== null) entry.values[i].push(doc[field]);
      }
    }
    return [...groups.values()].map((entry) => {
      const out: Document = { _id: deepClone(entry.id) };
      accumulators.forEach((accumulator, i) => {
        if (accumulator.field === null) out[accumulator.name] = entry.count * accumulator.constant;
        else out[accumulator.name] = accumulator.op === '$sum' ? addNumbers(entry.values[i]) : averageNumbers(entry.values[i]);
      });
      return out;
    });
  };
}
