import { Long } from 'bson';
import { canonicalKey, compareValues, isPlainObject, toNumber, type Document } from '../bson-values';
import { foldFor } from '../collation';
import type { CommandHandler } from '../command-context';
import { indexValues } from '../document-paths';
import { commandError } from '../errors';
import { effectiveCollation, findMatching, prepareQuery } from '../matching';
import { compileProjection, validateSort } from '../query-engine';
import { collectionArgument, optionalNonNegativeInt, refuseOptions } from './arguments';

const UNSUPPORTED_FIND_OPTIONS = ['tailable', 'awaitData', 'min', 'max', 'returnKey', 'showRecordId', 'oplogReplay', 'explain'];

function letArgument(command: Document): Document | undefined {
  return isPlainObject(command.let) ? command.let : undefined;
}

const find: CommandHandler = (command, { storage, db, cursors }) => {
  const name = collectionArgument(command, 'find', db);
  refuseOptions(command, 'find', UNSUPPORTED_FIND_OPTIONS);
  const collection = storage.getCollection(db, name);
  const query = prepareQuery(command.filter, effectiveCollation(command.collation, collection), letArgument(command));
  const sort = validateSort(command.sort);
  const skip = optionalNonNegativeInt(command, 'skip', 'find') ?? 0;
  const rawLimit = toNumber(command.limit) ?? 0;
  // A negative limit is the legacy way of asking for a single batch.
  const singleBatch = command.singleBatch === true || rawLimit < 0;
  const limit = Math.abs(Math.trunc(rawLimit));
  const batchSize = optionalNonNegativeInt(command, 'batchSize', 'find');
  const projector = compileProjection(command.projection, query.options, query.matcher.filter);
  const matched = findMatching(collection, query, sort, limit > 0 ? skip + limit : undefined);
  const page = skip > 0 || limit > 0 ? matched.slice(skip, limit > 0 ? skip + limit : undefined) : matched;
  const results = projector ? page.map(projector) : page;
  return { ...cursors.openCursor(`${db}.${name}`, results, batchSize, singleBatch), ok: 1 };
};

function cursorIdArgument(value: unknown): Long {
  if (value instanceof Long) return value;
  if (typeof value === 'number' && Number.isInteger(value)) return Long.fromNumber(value);
  throw commandError('TypeMismatch', "BSON field 'getMore.getMore' is the wrong type, expected type 'long'");
}

const getMore: CommandHandler = (command, { cursors }) => {
  const id = cursorIdArgument(command.getMore);
  if (typeof command.collection !== 'string') {
    throw commandError('TypeMismatch', "BSON field 'getMore.collection' is the wrong type, expected type 'string'");
  }
  const batchSize = optionalNonNegativeInt(command, 'batchSize', 'getMore');
  const batch = cursors.getMore(id, batchSize);
  if (!batch) throw commandError('CursorNotFound', `cursor id ${id.toString()} not found`);
  return { ...batch, ok: 1 };
};

const killCursors: CommandHandler = (command, { db, cursors }) => {
  collectionArgument(command, 'killCursors', db);
  if (!Array.isArray(command.cursors)) {
    throw commandError('FailedToParse', "BSON field 'killCursors.cursors' is missing but a required field");
  }
  const cursorsKilled: Long[] = [];
  const cursorsNotFound: Long[] = [];
  for (const raw of command.cursors) {
    const id = cursorIdArgument(raw);
    (cursors.kill(id) ? cursorsKilled : cursorsNotFound).push(id);
  }
  return { cursorsKilled, cursorsNotFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
};

const count: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'count', db);
  const collection = storage.getCollection(db, name);
  const query = prepareQuery(command.query, effectiveCollation(command.collation, collection), letArgument(command));
  const skip = optionalNonNegativeInt(command, 'skip', 'count') ?? 0;
  const limit = Math.abs(toNumber(command.limit) ?? 0);
  let n: number;
  if (collection && query.matcher.isEmpty) n = collection.docs.size;
  else n = findMatching(collection, query, undefined, limit > 0 ? skip + limit : undefined).length;
  n = Math.max(0, n - skip);
  if (limit > 0) n = Math.min(n, limit);
  return { n, ok: 1 };
};

const distinct: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'distinct', db);
  if (typeof command.key !== 'string') {
    throw commandError('TypeMismatch', "BSON field 'distinct.key' is the wrong type, expected type 'string'");
  }
  const key = command.key;
  const collection = storage.getCollection(db, name);
  const collation = effectiveCollation(command.collation, collection);
  const query = prepareQuery(command.query, collation, letArgument(command));
  const fold = foldFor(collation?.level ?? 0);
  const seen = new Map<string, unknown>();
  for (const doc of findMatching(collection, query)) {
    for (const value of indexValues(doc, key).values) {
      if (value === undefined) continue;
      const canonical = canonicalKey(value, fold);
      if (!seen.has(canonical)) seen.set(canonical, value);
    }
  }
  return { values: [...seen.values()].sort(compareValues), ok: 1 };
};

export const readCommands: Record<string, CommandHandler> = {
  find,
  getMore,
  killCursors,
  count,
  distinct,
};
