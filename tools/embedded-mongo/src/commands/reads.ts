import { Long } from 'bson';
import { compareValues, isPlainObject, toNumber, type Document } from '../bson-values';
import { foldFor } from '../collation';
import type { Collection } from '../collection';
import type { CommandContext, CommandHandler } from '../command-context';
import { indexValues } from '../document-paths';
import { commandError } from '../errors';
import { explainCount, explainQuery, type ExplainContext } from '../explain';
import { encodeValue } from '../key-encoding';
import {
  countQuery,
  effectiveCollation,
  prepareQuery,
  runQuery,
  type CountOutcome,
  type PreparedQuery,
  type QueryOutcome,
  type QueryShape,
} from '../matching';
import { compileProjection, validateSort, type Projector } from '../query-engine';
import type { QueryRequest } from '../query-request';
import { parseMaxTimeMS } from '../operation';
import { collectionArgument, optionalNonNegativeInt, refuseOptions } from './arguments';

const UNSUPPORTED_FIND_OPTIONS = ['tailable', 'awaitData', 'min', 'max', 'returnKey', 'showRecordId', 'oplogReplay', 'explain'];

export function letArgument(command: Document): Document | undefined {
  return isPlainObject(command.let) ? command.let : undefined;
}

interface PreparedFind {
  ns: string;
  collection: Collection | undefined;
  query: PreparedQuery;
  shape: QueryShape;
  projector: Projector | undefined;
  singleBatch: boolean;
  batchSize: number | undefined;
  noCursorTimeout: boolean;
}

function prepareFind(command: Document, { storage, db }: CommandContext): PreparedFind {
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
  const projection = isPlainObject(command.projection) ? command.projection : undefined;
  const projector = compileProjection(command.projection, query.options, query.matcher.filter);
  const hint = naturalSortHint(command.sort) ?? command.hint;
  return {
    ns: `${db}.${name}`,
    collection,
    query,
    shape: { sort, skip, limit, hint, projection, batchSize },
    projector,
    singleBatch,
    batchSize,
    noCursorTimeout: command.noCursorTimeout === true,
  };
}

/** A `$natural` sort asks for a collection scan in that direction, as a `$natural` hint does. */
function naturalSortHint(sort: unknown): Document | undefined {
  if (!isPlainObject(sort) || !('$natural' in sort)) return undefined;
  return { $natural: toNumber(sort.$natural) === -1 ? -1 : 1 };
}

function runFind(prepared: PreparedFind, context: CommandContext): Promise<QueryOutcome> {
  return runQuery(context.op, context.parameters, prepared.ns, prepared.collection, prepared.query, prepared.shape);
}

/** Applies a projection to every result, yielding between slices. */
async function project(context: CommandContext, docs: Document[], projector: Projector | undefined): Promise<Document[]> {
  if (!projector) return docs;
  const out: Document[] = [];
  for (const doc of docs) {
    out.push(projector(doc));
    if (context.op.tick()) await context.op.yieldTurn();
  }
  return out;
}

const find: CommandHandler = async (command, context) => {
  const prepared = prepareFind(command, context);
  const outcome = await runFind(prepared, context);
  const results = await project(context, outcome.docs, prepared.projector);
  return context.cursors.openCursor(context.op, prepared.ns, results, {
    batchSize: prepared.batchSize,
    singleBatch: prepared.singleBatch,
    noTimeout: prepared.noCursorTimeout,
  });
};

export async function explainFind(command: Document, context: CommandContext, explain: ExplainContext): Promise<Document> {
  const prepared = prepareFind(command, context);
  return explainQuery(explain, await runFind(prepared, context), { projection: prepared.shape.projection });
}

function cursorIdArgument(value: unknown): Long {
  if (value instanceof Long) return value;
  if (typeof value === 'number' && Number.isInteger(value)) return Long.fromNumber(value);
  throw commandError('TypeMismatch', "BSON field 'getMore.getMore' is the wrong type, expected type 'long'");
}

const getMore: CommandHandler = (command, { cursors, op }) => {
  const id = cursorIdArgument(command.getMore);
  if (typeof command.collection !== 'string') {
    throw commandError('TypeMismatch', "BSON field 'getMore.collection' is the wrong type, expected type 'string'");
  }
  const batchSize = optionalNonNegativeInt(command, 'batchSize', 'getMore');
  // Only tailable awaitData cursors (not supported here) take a maxTimeMS of their own; a cursor
  // spends what is left of the maxTimeMS of the command that opened it.
  if (parseMaxTimeMS(command) > 0) throw commandError('BadValue', 'cannot set maxTimeMS on getMore command for a non-awaitData cursor');
  return cursors.getMore(op, id, batchSize);
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

interface CountRun {
  n: number;
  /** Null when the count came from the collection's size (empty query). */
  outcome: CountOutcome | QueryOutcome | null;
  request: QueryRequest;
}

async function runCount(command: Document, context: CommandContext): Promise<CountRun> {
  const { storage, db, parameters, op } = context;
  const name = collectionArgument(command, 'count', db);
  const collection = storage.getCollection(db, name);
  const query = prepareQuery(command.query, effectiveCollation(command.collation, collection), letArgument(command));
  const skip = optionalNonNegativeInt(command, 'skip', 'count') ?? 0;
  const limit = Math.abs(toNumber(command.limit) ?? 0);
  const ns = `${db}.${name}`;
  const fastCount = query.matcher.isEmpty && (command.hint === undefined || command.hint === null);
  const bare: QueryRequest = { ns, filter: query.rawFilter, collationLevel: query.options.collation?.level ?? 0 };
  const window = (total: number): number => {
    const n = Math.max(0, total - skip);
    return limit > 0 ? Math.min(n, limit) : n;
  };
  if (fastCount) return { n: window(collection?.size ?? 0), outcome: null, request: bare };
  if (skip > 0 || limit > 0) {
    const outcome = await runQuery(op, parameters, ns, collection, query, { skip, limit, hint: command.hint });
    return { n: outcome.docs.length, outcome, request: outcome.request };
  }
  const outcome = await countQuery(op, parameters, ns, collection, query, command.hint);
  return { n: window(outcome.n), outcome, request: outcome.request };
}

const count: CommandHandler = async (command, context) => ({ n: (await runCount(command, context)).n, ok: 1 });

export async function explainCountCommand(command: Document, context: CommandContext, explain: ExplainContext): Promise<Document> {
  const { outcome, request } = await runCount(command, context);
  if (outcome && 'execution' in outcome) return explainQuery(explain, outcome, { root: countRoot(outcome.docs.length) });
  return explainCount(explain, outcome, request);
}

function countRoot(n: number) {
  return (stage: Document, withStats: boolean): Document =>
    withStats ? { stage: 'COUNT', nReturned: 0, nCounted: n, nSkipped: 0, inputStage: stage } : { stage: 'COUNT', inputStage: stage };
}

async function runDistinct(command: Document, context: CommandContext): Promise<{ values: unknown[]; outcome: QueryOutcome }> {
  const { storage, db, parameters, op } = context;
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
  const outcome = await runQuery(op, parameters, `${db}.${name}`, collection, query, { hint: command.hint });
  for (const doc of outcome.docs) {
    for (const value of indexValues(doc, key).values) {
      if (value === undefined) continue;
      const canonical = encodeValue(value, fold);
      if (!seen.has(canonical)) seen.set(canonical, value);
    }
    if (op.tick()) await op.yieldTurn();
  }
  return { values: [...seen.values()].sort(compareValues), outcome };
}

const distinct: CommandHandler = async (command, context) => ({ values: (await runDistinct(command, context)).values, ok: 1 });

export async function explainDistinct(command: Document, context: CommandContext, explain: ExplainContext): Promise<Document> {
  return explainQuery(explain, (await runDistinct(command, context)).outcome);
}

export const readCommands: Record<string, CommandHandler> = {
  find,
  getMore,
  killCursors,
  count,
  distinct,
};
