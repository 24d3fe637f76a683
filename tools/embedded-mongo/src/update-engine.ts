import { Aggregator, update as applyModifier } from 'mingo';
import { Decimal128, Long, ObjectId } from 'bson';
import { bsonTypeOf, canonicalKey, deepClone, formatValue, isPlainObject, type Document } from './bson-values';
import { addNumbers } from './summation';
import { getPath, setPath } from './document-paths';
import { commandError, notSupported, toCommandError } from './errors';
import { mingoOptions, type QueryOptions } from './query-engine';

export type ParsedUpdate =
  { kind: 'operators'; modifier: Document } | { kind: 'replacement'; replacement: Document } | { kind: 'pipeline'; stages: Document[] };

const UPDATE_OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$push',
  '$addToSet',
  '$pull',
  '$pullAll',
  '$pop',
  '$currentDate',
  '$bit',
  '$setOnInsert',
]);
const PIPELINE_UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  if (typeof value === 'boolean') return 'bool';
  return bsonTypeOf(value)?.toLowerCase() ?? (isPlainObject(value) ? 'object' : typeof value);
}

export function parseUpdate(raw: unknown): ParsedUpdate {
  if (Array.isArray(raw)) {
    for (const stage of raw) {
      const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
      if (!name || !PIPELINE_UPDATE_STAGES.has(name)) {
        throw commandError('InvalidOptions', `${String(name)} is not allowed to be used within an update`);
      }
    }
    return { kind: 'pipeline', stages: raw as Document[] };
  }
  if (!isPlainObject(raw)) throw commandError('FailedToParse', 'Update argument must be either an object or an array');
  const keys = Object.keys(raw);
  const operatorKeys = keys.filter((key) => key.startsWith('$'));
  if (operatorKeys.length === 0) return { kind: 'replacement', replacement: raw };
  for (const key of keys) {
    if (!UPDATE_OPERATORS.has(key)) {
      throw commandError(
        'FailedToParse',
        `Unknown modifier: ${key}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    }
    const argument = raw[key];
    if (!isPlainObject(argument)) {
      throw commandError(
        'FailedToParse',
        `Modifiers operate on fields but we found type ${typeName(argument)} instead. ` +
          `For example: {$mod: {<field>: ...}} not {${key}: ${formatValue(argument)}}`,
      );
    }
  }
  return { kind: 'operators', modifier: raw };
}

export function isMultiAllowed(update: ParsedUpdate): boolean {
  return update.kind !== 'replacement';
}

/**
 * Validates `$inc` / `$mul` like mongod, and computes `$inc` involving Decimal128 or Long
 * exactly here (mingo leaves such fields unchanged), turning those entries into `$set`.
 */
function prepareArithmetic(doc: Document, modifier: Document): void {
  for (const op of ['$inc', '$mul'] as const) {
    const fields = modifier[op] as Document | undefined;
    if (!fields) continue;
    const remaining: Document = { ...fields };
    for (const [path, amount] of Object.entries(fields)) {
      const wide = (value: unknown): boolean => value instanceof Long || value instanceof Decimal128;
      if (op === '$inc' && !path.includes('$')) {
        const current = getPath(doc, path);
        if ((wide(amount) || wide(current)) && (current === undefined || typeof current === 'number' || wide(current))) {
          if (typeof amount === 'number' || wide(amount)) {
            modifier.$set = { ...(isPlainObject(modifier.$set) ? modifier.$set : {}), [path]: addNumbers([current ?? 0, amount]) };
            delete remaining[path];
            continue;
          }
        }
      }
      if (wide(amount)) throw notSupported(`${op} with a ${typeName(amount)} argument`);
      if (typeof amount !== 'number') {
        const verb = op === '$inc' ? 'increment' : 'multiply';
        throw commandError('TypeMismatch', `Cannot ${verb} with non-numeric argument: {${path}: ${formatValue(amount)}}`);
      }
      if (path.includes('$')) continue;
      const current = getPath(doc, path);
      if (current instanceof Long || current instanceof Decimal128) throw notSupported(`${op} on a ${typeName(current)} field`);
      if (current !== undefined && typeof current !== 'number') {
        throw commandError(
          'TypeMismatch',
          `Cannot apply ${op} to a value of non-numeric type. {_id: ` +
            `${formatValue(doc._id)}} has the field '${path}' of non-numeric type ${typeName(current)}`,
        );
      }
    }
    if (Object.keys(remaining).length > 0) modifier[op] = remaining;
    else delete modifier[op];
  }
}

function checkIdUnchanged(before: Document, after: Document): void {
  if (canonicalKey(before._id) !== canonicalKey(after._id)) {
    throw commandError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
}

/** Returns a document with `_id` as its first field, as mongod stores it. */
export function withIdFirst(doc: Document): Document {
  for (const first in doc) {
    if (first === '_id' && doc._id !== undefined) return doc;
    break;
  }
  const { _id, ...rest } = doc;
  return { _id: _id === undefined ? new ObjectId() : _id, ...rest };
}

export interface ApplyOptions {
  /** The (collation-rewritten) filter that selected the document; drives the positional `$`. */
  filter: Document;
  arrayFilters?: Document[];
  /** True when the document is being inserted by an upsert (`$setOnInsert` applies). */
  isInsert: boolean;
  query: QueryOptions;
}

/** Applies an update to a copy of `doc`; the stored document is never mutated. */
export function applyUpdate(doc: Document, update: ParsedUpdate, options: ApplyOptions): { doc: Document; modified: boolean } {
  if (update.kind === 'replacement') {
    const { _id, ...fields } = update.replacement;
    const next: Document = { _id: doc._id, ...deepClone(fields) };
    if (_id !== undefined && !options.isInsert && canonicalKey(_id) !== canonicalKey(doc._id)) {
      throw commandError(
        'ImmutableField',
        `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(_id)}`,
      );
    }
    if (options.isInsert && _id !== undefined) next._id = _id;
    return { doc: withIdFirst(next), modified: canonicalKey(next) !== canonicalKey(doc) };
  }
  if (update.kind === 'pipeline') {
    let result: Document[];
    try {
      result = new Aggregator(update.stages, mingoOptions(options.query)).run<Document>([deepClone(doc)]);
    } catch (error) {
      throw toCommandError(error);
    }
    const next = result[0] ?? {};
    if (!options.isInsert) checkIdUnchanged(doc, next);
    if (next._id === undefined) next._id = doc._id;
    return { doc: withIdFirst(next), modified: canonicalKey(next) !== canonicalKey(doc) };
  }
  const { $setOnInsert, ...rest } = update.modifier;
  const modifier: Document = { ...rest };
  if (options.isInsert && isPlainObject($setOnInsert)) {
    modifier.$set = { ...(isPlainObject(modifier.$set) ? modifier.$set : {}), ...$setOnInsert };
  }
  prepareArithmetic(doc, modifier);
  const next = deepClone(doc);
  // mingo refuses any `$set` of `_id`; mongod allows it on insert and when the value is unchanged.
  if (isPlainObject(modifier.$set) && '_id' in modifier.$set) {
    const { _id, ...others } = modifier.$set;
    if (options.isInsert) next._id = deepClone(_id);
    else checkIdUnchanged(doc, { _id });
    modifier.$set = others;
  }
  let changed: string[];
  try {
    changed = applyModifier(next, modifier, options.arrayFilters, options.isInsert ? undefined : options.filter, {
      cloneMode: 'deep',
      queryOptions: mingoOptions(options.query),
    });
  } catch (error) {
    const mapped = toCommandError(error);
    const conflict = /^updating the path '(.*)' would create a conflict at '(.*)'$/.exec(mapped.message);
    if (conflict) {
      throw commandError('ConflictingUpdateOperators', `Updating the path '${conflict[1]}' would create a conflict at '${conflict[2]}'`);
    }
    if (/immutable field '_id'/.test(mapped.message)) {
      throw commandError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
    }
    if (/positional operator|array field for '\.\$'/.test(mapped.message)) {
      throw commandError('BadValue', 'The positional operator did not find the match needed from the query.');
    }
    throw mapped;
  }
  if (!options.isInsert) checkIdUnchanged(doc, next);
  return { doc: withIdFirst(next), modified: changed.length > 0 };
}

/** The document an upsert starts from: the equality conditions of the query. */
export function upsertSeed(filter: Document): Document {
  const seed: Document = {};
  const collect = (clause: Document): void => {
    for (const [key, value] of Object.entries(clause)) {
      if (key === '$and' && Array.isArray(value)) {
        value.forEach((inner) => isPlainObject(inner) && collect(inner));
        continue;
      }
      if (key.startsWith('$')) continue;
      if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
        if ('$eq' in value) setPath(seed, key, deepClone(value.$eq));
        continue;
      }
      if (value instanceof RegExp) continue;
      setPath(seed, key, deepClone(value));
    }
  };
  collect(filter);
  return seed;
}
