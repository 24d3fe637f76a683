import { canonicalKey, isPlainObject, toNumber, type Document } from '../bson-values';
import { resolveCollation } from '../collation';
import type { Collection } from '../collection';
import type { CommandHandler } from '../command-context';
import { commandError, notSupported } from '../errors';
import { IndexState, type IndexSpec } from '../index-state';
import { compileFilter } from '../query-engine';
import { collectionArgument } from './arguments';

const ACCEPTED_INDEX_FIELDS = new Set([
  'key',
  'name',
  'unique',
  'sparse',
  'partialFilterExpression',
  'collation',
  'expireAfterSeconds',
  'background',
  'v',
  'ns',
]);
const REFUSED_INDEX_FIELDS = new Set([
  'hidden',
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'bits',
  'min',
  'max',
  'bucketSize',
  'wildcardProjection',
  'storageEngine',
  'clustered',
  'prepareUnique',
]);

function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, direction]) => `${field}_${String(toNumber(direction) ?? direction)}`)
    .join('_');
}

function parseIndexSpec(raw: unknown): { spec: IndexSpec; collation: ReturnType<typeof resolveCollation> } {
  if (!isPlainObject(raw)) throw commandError('TypeMismatch', 'The indexes field must contain objects');
  for (const field of Object.keys(raw)) {
    if (REFUSED_INDEX_FIELDS.has(field)) throw notSupported(`the '${field}' index option`);
    if (!ACCEPTED_INDEX_FIELDS.has(field)) {
      throw commandError(
        'InvalidIndexSpecificationOption',
        `The field '${field}' is not valid for an index specification. Specification: ${JSON.stringify(raw)}`,
      );
    }
  }
  const key = raw.key;
  if (!isPlainObject(key) || Object.keys(key).length === 0) {
    throw commandError('CannotCreateIndex', 'Index keys cannot be empty.');
  }
  const normalizedKey: Document = {};
  for (const [field, direction] of Object.entries(key)) {
    if (field.includes('$**')) throw notSupported('wildcard indexes');
    if (typeof direction === 'string') throw notSupported(`'${direction}' indexes`);
    const n = toNumber(direction);
    if (n === undefined || n === 0 || !Number.isFinite(n)) {
      throw commandError('BadValue', `Values in the index key pattern can only be numbers or strings, got: ${String(direction)}`);
    }
    normalizedKey[field] = direction;
  }
  const name = raw.name === undefined ? defaultIndexName(normalizedKey) : raw.name;
  if (typeof name !== 'string' || name.length === 0) throw commandError('BadValue', 'index name must be a non-empty string');
  const spec: IndexSpec = { v: 2, key: normalizedKey, name };
  if (raw.unique === true || (raw.unique !== undefined && toNumber(raw.unique) === 1)) spec.unique = true;
  if (raw.sparse === true || (raw.sparse !== undefined && toNumber(raw.sparse) === 1)) spec.sparse = true;
  if (raw.partialFilterExpression !== undefined) {
    if (!isPlainObject(raw.partialFilterExpression)) throw commandError('TypeMismatch', 'partialFilterExpression must be an object');
    if (spec.sparse) throw commandError('BadValue', 'cannot mix "partialFilterExpression" and "sparse" options');
    spec.partialFilterExpression = raw.partialFilterExpression;
  }
  const collation = resolveCollation(raw.collation);
  if (collation) spec.collation = collation.spec;
  if (raw.expireAfterSeconds !== undefined) {
    // Stored and reported, but documents are never expired (no TTL monitor).
    spec.expireAfterSeconds = raw.expireAfterSeconds;
  }
  return { spec, collation };
}

/** Options that make two specs with the same key pattern different indexes in mongod's eyes. */
function optionsSignature(spec: IndexSpec): string {
  const { unique, sparse, partialFilterExpression, collation, expireAfterSeconds } = spec;
  return canonicalKey({
    unique: unique ?? false,
    sparse: sparse ?? false,
    partialFilterExpression,
    collation,
    expireAfterSeconds: toNumber(expireAfterSeconds),
  });
}

function allSpecs(collection: Collection): IndexSpec[] {
  return [collection.idIndexSpec, ...collection.indexes.map((index) => index.spec)];
}

/** Returns true if the index must be built, false if an identical one already exists. */
function checkAgainstExisting(collection: Collection, spec: IndexSpec): boolean {
  const keySignature = canonicalKey(spec.key);
  for (const existing of allSpecs(collection)) {
    const sameKey = canonicalKey(existing.key) === keySignature;
    const sameOptions =
      optionsSignature(existing) === optionsSignature({ ...spec, collation: spec.collation ?? collection.collation?.spec });
    if (existing.name === spec.name) {
      if (sameKey && (sameOptions || existing.name === '_id_')) return false;
      if (!sameKey) {
        throw commandError(
          'IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. When index names are not specified, ` +
            `they are auto generated and can cause conflicts. Please refer to our documentation. ` +
            `Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing)}`,
        );
      }
      throw commandError(
        'IndexOptionsConflict',
        `An equivalent index already exists with the same name but different options. ` +
          `Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing)}`,
      );
    }
    if (sameKey && sameOptions) {
      throw commandError('IndexOptionsConflict', `Index already exists with a different name: ${existing.name}`);
    }
  }
  return true;
}

const createIndexes: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'createIndexes', db);
  if (!Array.isArray(command.indexes) || command.indexes.length === 0) {
    throw commandError('BadValue', 'Must specify at least one index to create');
  }
  const parsed = command.indexes.map(parseIndexSpec);
  const { collection, created } = storage.getOrCreateCollection(db, name);
  const numIndexesBefore = collection.indexes.length + 1;
  for (const { spec, collation } of parsed) {
    if (spec.name === '_id_' || canonicalKey(spec.key) === canonicalKey({ _id: 1 })) {
      if (spec.unique === false)
        throw commandError('InvalidIndexSpecificationOption', "The field 'unique' is not valid for an _id index specification.");
      checkAgainstExisting(collection, spec);
      continue;
    }
    if (!checkAgainstExisting(collection, spec)) continue;
    const effectiveCollation = collation ?? collection.collation;
    if (effectiveCollation && !spec.collation) spec.collation = effectiveCollation.spec;
    const partialFilter = spec.partialFilterExpression
      ? compileFilter(spec.partialFilterExpression, { collation: effectiveCollation })
      : null;
    try {
      collection.addIndex(new IndexState(spec, effectiveCollation, partialFilter));
    } catch (error) {
      collection.dropIndex(spec.name);
      const e = error as { code?: number; message?: string; extra?: Document };
      if (e.code === 11000) {
        throw commandError('DuplicateKey', `Index build failed: ${collection.ns}: ${e.message ?? ''}`, e.extra);
      }
      throw error;
    }
  }
  const numIndexesAfter = collection.indexes.length + 1;
  const reply: Document = { numIndexesBefore, numIndexesAfter, createdCollectionAutomatically: created };
  if (numIndexesAfter === numIndexesBefore) reply.note = 'all indexes already exist';
  reply.ok = 1;
  return reply;
};

const listIndexes: CommandHandler = (command, { storage, db, cursors, op }) => {
  const name = collectionArgument(command, 'listIndexes', db);
  const collection = storage.getCollection(db, name);
  if (!collection) throw commandError('NamespaceNotFound', `ns does not exist: ${db}.${name}`);
  const cursorOptions = isPlainObject(command.cursor) ? command.cursor : {};
  const batchSize = toNumber(cursorOptions.batchSize);
  return cursors.openCursor(op, `${db}.$cmd.listIndexes.${name}`, allSpecs(collection), {
    batchSize: batchSize ?? Number.MAX_SAFE_INTEGER,
  });
};

const dropIndexes: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'dropIndexes', db);
  const collection = storage.getCollection(db, name);
  if (!collection) throw commandError('NamespaceNotFound', `ns not found ${db}.${name}`);
  const nIndexesWas = collection.indexes.length + 1;
  const target = command.index;
  let names: string[];
  if (target === '*') {
    names = collection.indexes.map((index) => index.spec.name);
  } else if (typeof target === 'string') {
    names = [target];
  } else if (Array.isArray(target) && target.every((item) => typeof item === 'string')) {
    names = target as string[];
  } else if (isPlainObject(target)) {
    const wanted = canonicalKey(target);
    const matches = allSpecs(collection).filter((spec) => canonicalKey(spec.key) === wanted);
    if (matches.length === 0) throw commandError('IndexNotFound', `can't find index with key: ${JSON.stringify(target)}`);
    names = matches.map((spec) => spec.name);
  } else {
    throw commandError('TypeMismatch', "BSON field 'dropIndexes.index' is the wrong type");
  }
  for (const indexName of names) {
    if (indexName === '_id_') throw commandError('InvalidOptions', 'cannot drop _id index');
    if (!collection.indexes.some((index) => index.spec.name === indexName)) {
      throw commandError('IndexNotFound', `index not found with name [${indexName}]`);
    }
  }
  for (const indexName of names) collection.dropIndex(indexName);
  return { nIndexesWas, ok: 1 };
};

export const indexCommands: Record<string, CommandHandler> = {
  createIndexes,
  listIndexes,
  dropIndexes,
};
