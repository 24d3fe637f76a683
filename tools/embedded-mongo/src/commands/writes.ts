import { isPlainObject, toNumber, type Document } from '../bson-values';
import type { Collection } from '../collection';
import type { CommandHandler } from '../command-context';
import { CommandError, commandError, DuplicateKeyError, isInterruption, toCommandError } from '../errors';
import type { CommandContext } from '../command-context';
import { explainQuery, type ExplainContext } from '../explain';
import { effectiveCollation, prepareQuery, runQuery, type QueryOutcome } from '../matching';
import type { Operation } from '../operation';
import { applyUpdate, isMultiAllowed, parseUpdate, upsertSeed, withIdFirst } from '../update-engine';
import { collectionArgument } from './arguments';
import { rawSequence } from '../wire-protocol';
import { decodeStoredDocument } from '../document-decoder';
import { moveIdFirst } from '../bson-bytes';

interface WriteError extends Document {
  index: number;
  code: number;
  errmsg: string;
}

function writeError(index: number, error: unknown): WriteError {
  const mapped = toCommandError(error);
  const entry: WriteError = { index, code: mapped.code, errmsg: mapped.message };
  if (mapped instanceof DuplicateKeyError) {
    entry.keyPattern = mapped.keyPattern;
    entry.keyValue = mapped.keyValue;
  }
  return entry;
}

function checkBatchSize(length: number): void {
  if (length > 100_000) {
    throw commandError('InvalidLength', `Write batch sizes must be between 1 and 100000. Got ${length} operations.`);
  }
}

function statementsArgument(command: Document, field: string, commandName: string): Document[] {
  const statements = command[field];
  if (!Array.isArray(statements)) {
    throw commandError('FailedToParse', `BSON field '${commandName}.${field}' is missing but a required field`);
  }
  checkBatchSize(statements.length);
  return statements as Document[];
}

/**
 * Runs each statement; an ordered batch stops at the first error, as mongod does. The batch
 * yields between statements; an interruption (time limit, killOp, client gone) fails the whole
 * command, as in mongod, leaving the statements already applied in place.
 */
async function runStatements(
  op: Operation,
  count: number,
  ordered: boolean,
  run: (index: number) => void | Promise<void>,
): Promise<WriteError[]> {
  const errors: WriteError[] = [];
  for (let index = 0; index < count; index++) {
    try {
      const pending = run(index);
      if (pending) await pending;
    } catch (error) {
      if (isInterruption(error)) throw error;
      errors.push(writeError(index, error));
      if (ordered) break;
    }
    if (op.tick()) await op.yieldTurn();
  }
  return errors;
}

/** After a yield: a collection dropped meanwhile stops the statement (mongod's QueryPlanKilled). */
async function yieldWithin(op: Operation, collection: Collection): Promise<void> {
  if (!op.tick()) return;
  await op.yieldTurn();
  if (collection.dropped) throw commandError('QueryPlanKilled', 'collection dropped during write');
}

function validateId(id: unknown): void {
  if (Array.isArray(id)) throw commandError('InvalidIdField', "The '_id' value cannot be of type array");
  if (id instanceof RegExp) throw commandError('InvalidIdField', "The '_id' value cannot be of type regex");
}

function withWriteErrors(reply: Document, errors: WriteError[]): Document {
  if (errors.length > 0) reply.writeErrors = errors;
  reply.ok = 1;
  return reply;
}

const insert: CommandHandler = async (command, { storage, db, op }) => {
  const name = collectionArgument(command, 'insert', db);
  // Documents of a document sequence are decoded one at a time, as they are inserted.
  const rawDocuments = rawSequence(command, 'documents');
  const documents = rawDocuments ? undefined : statementsArgument(command, 'documents', 'insert');
  const count = rawDocuments?.length ?? (documents as Document[]).length;
  checkBatchSize(count);
  let collection = storage.getOrCreateCollection(db, name).collection;
  let n = 0;
  const errors = await runStatements(op, count, command.ordered !== false, (index) => {
    // Another operation may have dropped the collection while this one yielded: it is created again.
    if (collection.dropped) collection = storage.getOrCreateCollection(db, name).collection;
    // The bytes as received, with the `_id` element moved first when it came later (the driver
    // appends the `_id` it generates): stored as mongod stores it, and journaled as they are. A
    // document of the common types is encoded straight from them; any other is decoded first.
    const bytes = rawDocuments?.[index];
    const hasId = bytes ? moveIdFirst(bytes) : false;
    if (bytes && collection.insertBson(bytes, hasId)) {
      n++;
      return;
    }
    const raw = bytes ? decodeStoredDocument(bytes) : (documents as Document[])[index];
    if (!isPlainObject(raw)) throw commandError('TypeMismatch', 'Documents to insert must be objects');
    // The document was just deserialized from the wire, so nothing else references it.
    const doc = withIdFirst(raw);
    validateId(doc._id);
    // Encoded again only when it changed here (it had no `_id`).
    collection.insert(doc, doc === raw ? bytes : undefined);
    n++;
  });
  return withWriteErrors({ n }, errors);
};

interface UpdateOutcome {
  matched: number;
  modified: number;
  upsertedId?: unknown;
}

export interface UpdateStatement {
  q?: unknown;
  u?: unknown;
  upsert?: unknown;
  multi?: unknown;
  arrayFilters?: unknown;
  collation?: unknown;
  c?: unknown;
  hint?: unknown;
}

function arrayFiltersArgument(value: unknown): Document[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every(isPlainObject)) {
    throw commandError('TypeMismatch', "BSON field 'arrayFilters' is the wrong type, expected type 'array'");
  }
  return value as Document[];
}

type WriteContext = Pick<CommandContext, 'storage' | 'parameters' | 'db' | 'op'>;

async function planUpdate({ storage, parameters, db, op }: WriteContext, name: string, statement: UpdateStatement, variables?: Document) {
  if (!isPlainObject(statement)) throw commandError('TypeMismatch', 'update statements must be objects');
  const existing = storage.getCollection(db, name);
  const update = parseUpdate(statement.u);
  const multi = statement.multi === true;
  if (multi && !isMultiAllowed(update)) {
    throw commandError('InvalidOptions', 'multi update is not supported for replacement-style update');
  }
  const arrayFilters = arrayFiltersArgument(statement.arrayFilters);
  const letVariables = isPlainObject(statement.c) ? { ...variables, ...statement.c } : variables;
  const query = prepareQuery(statement.q, effectiveCollation(statement.collation, existing), letVariables);
  // Whole documents (the update makes each one's new version), kept for the write: see currentMatch.
  const fetch = existing?.writeFetch(query.matcher, null);
  const shape = { limit: multi ? undefined : 1, hint: statement.hint };
  const outcome = await runQuery(op, parameters, `${db}.${name}`, existing, query, shape, fetch);
  return { existing, update, arrayFilters, query, outcome, multi };
}

/** Times a single-document write re-runs its query when its match changed meanwhile. */
const RETRIES = 5;

/** One update statement (also used by findAndModify's building blocks). */
async function runUpdate(context: WriteContext, name: string, statement: UpdateStatement, variables?: Document): Promise<UpdateOutcome> {
  const { storage, db, op } = context;
  for (let attempt = 0; ; attempt++) {
    const { existing, update, arrayFilters, query, outcome, multi } = await planUpdate(context, name, statement, variables);
    let matched = 0;
    let modified = 0;
    for (const doc of outcome.docs) {
      const current = (existing as Collection).currentMatch(doc, query.matcher);
      if (!current) continue;
      matched++;
      const result = applyUpdate(current, update, { filter: query.matcher.filter, arrayFilters, isInsert: false, query: query.options });
      if (result.modified) {
        (existing as Collection).replace(current, result.doc);
        modified++;
      }
      if (multi) await yieldWithin(op, existing as Collection);
    }
    // A single-document update whose match changed while it yielded looks again, as mongod does.
    if (!multi && outcome.docs.length > 0 && matched === 0 && attempt < RETRIES) continue;
    if (matched > 0 || statement.upsert !== true) return { matched, modified };
    const inserted = upsertInsert(storage, db, name, query.rawFilter, update, arrayFilters, query.options);
    return { matched: 0, modified: 0, upsertedId: inserted._id };
  }
}

export function upsertInsert(
  storage: CommandContext['storage'],
  db: string,
  name: string,
  rawFilter: Document,
  update: ReturnType<typeof parseUpdate>,
  arrayFilters: Document[] | undefined,
  queryOptions: Parameters<typeof applyUpdate>[2]['query'],
): Document {
  const seed = upsertSeed(rawFilter);
  const base = update.kind === 'replacement' ? (seed._id === undefined ? {} : { _id: seed._id }) : seed;
  const { doc } = applyUpdate(base, update, { filter: {}, arrayFilters, isInsert: true, query: queryOptions });
  validateId(doc._id);
  storage.getOrCreateCollection(db, name).collection.insert(doc);
  return doc;
}

const update: CommandHandler = async (command, context) => {
  const name = collectionArgument(command, 'update', context.db);
  const statements = statementsArgument(command, 'updates', 'update');
  const variables = isPlainObject(command.let) ? command.let : undefined;
  let n = 0;
  let nModified = 0;
  const upserted: Document[] = [];
  const errors = await runStatements(context.op, statements.length, command.ordered !== false, async (index) => {
    const outcome = await runUpdate(context, name, statements[index] as UpdateStatement, variables);
    n += outcome.matched;
    nModified += outcome.modified;
    if (outcome.upsertedId !== undefined) {
      n++;
      upserted.push({ index, _id: outcome.upsertedId });
    }
  });
  const reply: Document = { n, nModified };
  if (upserted.length > 0) reply.upserted = upserted;
  return withWriteErrors(reply, errors);
};

async function planDelete({ storage, parameters, db, op }: WriteContext, name: string, statement: unknown, variables?: Document) {
  if (!isPlainObject(statement)) throw commandError('TypeMismatch', 'delete statements must be objects');
  const limit = toNumber(statement.limit);
  if (limit !== 0 && limit !== 1) {
    throw new CommandError(9, `The limit field in delete objects must be 0 or 1. Got ${String(statement.limit)}`);
  }
  const collection = storage.getCollection(db, name);
  const query = prepareQuery(statement.q, effectiveCollation(statement.collation, collection), variables);
  // A removal needs only the fields the indexes read: a match is decoded as far as those and the filter's.
  const fetch = collection?.writeFetch(query.matcher, collection.indexedFields);
  const shape = { limit: limit === 1 ? 1 : undefined, hint: statement.hint };
  const outcome: QueryOutcome = await runQuery(op, parameters, `${db}.${name}`, collection, query, shape, fetch);
  return { collection, query, outcome, multi: limit !== 1 };
}

async function runDelete(context: WriteContext, name: string, statement: unknown, variables?: Document): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const { collection, query, outcome, multi } = await planDelete(context, name, statement, variables);
    let n = 0;
    for (const doc of outcome.docs) {
      const current = (collection as Collection).currentMatch(doc, query.matcher);
      if (!current) continue;
      (collection as Collection).remove(current);
      n++;
      if (multi) await yieldWithin(context.op, collection as Collection);
    }
    if (multi || n > 0 || outcome.docs.length === 0 || attempt >= RETRIES) return n;
  }
}

const remove: CommandHandler = async (command, context) => {
  const name = collectionArgument(command, 'delete', context.db);
  const statements = statementsArgument(command, 'deletes', 'delete');
  const variables = isPlainObject(command.let) ? command.let : undefined;
  let n = 0;
  const errors = await runStatements(context.op, statements.length, command.ordered !== false, async (index) => {
    n += await runDelete(context, name, statements[index], variables);
  });
  return withWriteErrors({ n }, errors);
};

/** explain of update / delete: the first statement is planned and run without changing anything. */
export async function explainWrite(command: Document, context: CommandContext, explain: ExplainContext): Promise<Document> {
  const kind = command.update !== undefined ? 'update' : 'delete';
  const name = collectionArgument(command, kind, context.db);
  const statements = statementsArgument(command, kind === 'update' ? 'updates' : 'deletes', kind);
  if (statements.length !== 1) throw commandError('InvalidLength', `explained ${kind} must have exactly one statement`);
  const variables = isPlainObject(command.let) ? command.let : undefined;
  if (kind === 'delete') {
    const { outcome } = await planDelete(context, name, statements[0], variables);
    return explainQuery(explain, outcome, { root: writeRoot('DELETE', { nWouldDelete: outcome.docs.length }), nReturned: 0 });
  }
  const statement = statements[0] as UpdateStatement;
  const { update: parsed, arrayFilters, query, outcome } = await planUpdate(context, name, statement, variables);
  const nWouldModify = outcome.docs.filter(
    (doc) => applyUpdate(doc, parsed, { filter: query.matcher.filter, arrayFilters, isInsert: false, query: query.options }).modified,
  ).length;
  const stats = {
    nMatched: outcome.docs.length,
    nWouldModify,
    nWouldUpsert: outcome.docs.length === 0 && statement.upsert === true ? 1 : 0,
  };
  return explainQuery(explain, outcome, { root: writeRoot('UPDATE', stats), nReturned: 0 });
}

export function writeRoot(stage: 'UPDATE' | 'DELETE', stats: Document) {
  return (input: Document, withStats: boolean): Document =>
    withStats ? { stage, nReturned: 0, ...stats, inputStage: input } : { stage, inputStage: input };
}

export const writeCommands: Record<string, CommandHandler> = {
  insert,
  update,
  delete: remove,
};
