import { isPlainObject, toNumber, type Document } from '../bson-values';
import type { Collection } from '../collection';
import type { CommandHandler } from '../command-context';
import { CommandError, commandError, DuplicateKeyError, toCommandError } from '../errors';
import type { CommandContext } from '../command-context';
import { explainQuery, type ExplainContext } from '../explain';
import { effectiveCollation, prepareQuery, runQuery, type QueryOutcome } from '../matching';
import type { ServerParameters } from '../parameters';
import { applyUpdate, isMultiAllowed, parseUpdate, upsertSeed, withIdFirst } from '../update-engine';
import { collectionArgument } from './arguments';
import type { Storage } from '../storage';
import { rawSequence } from '../wire-protocol';

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

function statementsArgument(command: Document, field: string, commandName: string): Document[] {
  const statements = command[field];
  if (!Array.isArray(statements)) {
    throw commandError('FailedToParse', `BSON field '${commandName}.${field}' is missing but a required field`);
  }
  if (statements.length > 100_000) {
    throw commandError('InvalidLength', `Write batch sizes must be between 1 and 100000. Got ${statements.length} operations.`);
  }
  return statements as Document[];
}

/** Runs each statement; an ordered batch stops at the first error, as mongod does. */
function runStatements<T>(statements: T[], ordered: boolean, run: (statement: T, index: number) => void): WriteError[] {
  const errors: WriteError[] = [];
  for (const [index, statement] of statements.entries()) {
    try {
      run(statement, index);
    } catch (error) {
      errors.push(writeError(index, error));
      if (ordered) break;
    }
  }
  return errors;
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

const insert: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'insert', db);
  const documents = statementsArgument(command, 'documents', 'insert');
  const rawDocuments = rawSequence(command, 'documents');
  const { collection } = storage.getOrCreateCollection(db, name);
  let n = 0;
  const errors = runStatements(documents, command.ordered !== false, (raw, index) => {
    if (!isPlainObject(raw)) throw commandError('TypeMismatch', 'Documents to insert must be objects');
    // The document was just deserialized from the wire, so nothing else references it.
    const doc = withIdFirst(raw);
    validateId(doc._id);
    // The bytes as received serve the journal when the document was not changed (it had an _id first).
    collection.insert(doc, doc === raw ? rawDocuments?.[index] : undefined);
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

function planUpdate(storage: Storage, parameters: ServerParameters, db: string, name: string, statement: UpdateStatement, variables?: Document) {
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
  const outcome = runQuery(parameters, `${db}.${name}`, existing, query, { limit: multi ? undefined : 1, hint: statement.hint });
  return { existing, update, arrayFilters, query, outcome };
}

/** One update statement (also used by findAndModify's building blocks). */
export function runUpdate(
  storage: Storage,
  parameters: ServerParameters,
  db: string,
  name: string,
  statement: UpdateStatement,
  variables?: Document,
): UpdateOutcome {
  const { existing, update, arrayFilters, query, outcome } = planUpdate(storage, parameters, db, name, statement, variables);
  const matches = outcome.docs;
  let modified = 0;
  for (const doc of matches) {
    const result = applyUpdate(doc, update, { filter: query.matcher.filter, arrayFilters, isInsert: false, query: query.options });
    if (!result.modified) continue;
    (existing as Collection).replace(doc, result.doc);
    modified++;
  }
  if (matches.length > 0 || statement.upsert !== true) return { matched: matches.length, modified };
  const inserted = upsertInsert(storage, db, name, query.rawFilter, update, arrayFilters, query.options);
  return { matched: 0, modified: 0, upsertedId: inserted._id };
}

export function upsertInsert(
  storage: Storage,
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

const update: CommandHandler = (command, { storage, db, parameters }) => {
  const name = collectionArgument(command, 'update', db);
  const statements = statementsArgument(command, 'updates', 'update');
  const variables = isPlainObject(command.let) ? command.let : undefined;
  let n = 0;
  let nModified = 0;
  const upserted: Document[] = [];
  const errors = runStatements(statements, command.ordered !== false, (statement, index) => {
    const outcome = runUpdate(storage, parameters, db, name, statement as UpdateStatement, variables);
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

function planDelete(storage: Storage, parameters: ServerParameters, db: string, name: string, statement: unknown, variables?: Document): QueryOutcome {
  if (!isPlainObject(statement)) throw commandError('TypeMismatch', 'delete statements must be objects');
  const limit = toNumber(statement.limit);
  if (limit !== 0 && limit !== 1) {
    throw new CommandError(9, `The limit field in delete objects must be 0 or 1. Got ${String(statement.limit)}`);
  }
  const collection = storage.getCollection(db, name);
  const query = prepareQuery(statement.q, effectiveCollation(statement.collation, collection), variables);
  return runQuery(parameters, `${db}.${name}`, collection, query, { limit: limit === 1 ? 1 : undefined, hint: statement.hint });
}

const remove: CommandHandler = (command, { storage, db, parameters }) => {
  const name = collectionArgument(command, 'delete', db);
  const statements = statementsArgument(command, 'deletes', 'delete');
  const variables = isPlainObject(command.let) ? command.let : undefined;
  let n = 0;
  const errors = runStatements(statements, command.ordered !== false, (statement) => {
    const collection = storage.getCollection(db, name);
    for (const doc of planDelete(storage, parameters, db, name, statement, variables).docs) {
      (collection as Collection).remove(doc);
      n++;
    }
  });
  return withWriteErrors({ n }, errors);
};

/** explain of update / delete: the first statement is planned and run without changing anything. */
export function explainWrite(command: Document, context: CommandContext, explain: ExplainContext): Document {
  const kind = command.update !== undefined ? 'update' : 'delete';
  const name = collectionArgument(command, kind, context.db);
  const statements = statementsArgument(command, kind === 'update' ? 'updates' : 'deletes', kind);
  if (statements.length !== 1) throw commandError('InvalidLength', `explained ${kind} must have exactly one statement`);
  const variables = isPlainObject(command.let) ? command.let : undefined;
  if (kind === 'delete') {
    const outcome = planDelete(context.storage, context.parameters, context.db, name, statements[0], variables);
    return explainQuery(explain, outcome, { root: writeRoot('DELETE', { nWouldDelete: outcome.docs.length }), nReturned: 0 });
  }
  const statement = statements[0] as UpdateStatement;
  const { update: parsed, arrayFilters, query, outcome } = planUpdate(context.storage, context.parameters, context.db, name, statement, variables);
  const nWouldModify = outcome.docs.filter(
    (doc) => applyUpdate(doc, parsed, { filter: query.matcher.filter, arrayFilters, isInsert: false, query: query.options }).modified,
  ).length;
  const stats = { nMatched: outcome.docs.length, nWouldModify, nWouldUpsert: outcome.docs.length === 0 && statement.upsert === true ? 1 : 0 };
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
