import { isPlainObject, type Document } from '../bson-values';
import type { CommandContext, CommandHandler } from '../command-context';
import { commandError } from '../errors';
import { explainQuery, type ExplainContext } from '../explain';
import { effectiveCollation, prepareQuery, runQuery } from '../matching';
import { compileProjection, validateSort } from '../query-engine';
import { applyUpdate, parseUpdate } from '../update-engine';
import { collectionArgument, optionalDocument } from './arguments';
import { upsertInsert, writeRoot } from './writes';

/**
 * findAndModify: errors (including duplicate keys, code 11000 with keyPattern/keyValue) are
 * reported at the top level, not as writeErrors.
 */
async function prepareFindAndModify(command: Document, { storage, db, parameters, op }: CommandContext) {
  const name = collectionArgument(command, command.findAndModify !== undefined ? 'findAndModify' : 'findandmodify', db);
  const remove = command.remove === true;
  const hasUpdate = command.update !== undefined && command.update !== null;
  const returnNew = command.new === true;
  const upsert = command.upsert === true;
  if (remove && hasUpdate) throw commandError('FailedToParse', 'Cannot specify both an update and remove=true');
  if (!remove && !hasUpdate) throw commandError('FailedToParse', 'Either an update or remove=true must be specified');
  if (remove && upsert) throw commandError('FailedToParse', 'Cannot specify both upsert=true and remove=true ');
  if (remove && returnNew)
    throw commandError('FailedToParse', "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document");

  const collection = storage.getCollection(db, name);
  const variables = isPlainObject(command.let) ? command.let : undefined;
  const query = prepareQuery(command.query, effectiveCollation(command.collation, collection), variables);
  const sort = validateSort(command.sort);
  const projector = compileProjection(optionalDocument(command, 'fields', 'findAndModify'), query.options, query.matcher.filter);
  const outcome = await runQuery(op, parameters, `${db}.${name}`, collection, query, { sort, limit: 1, hint: command.hint });
  return { name, remove, returnNew, upsert, collection, query, projector, outcome };
}

/** Times the query runs again when its match changed while it yielded (as mongod retries on a write conflict). */
const RETRIES = 5;

const findAndModify: CommandHandler = async (command, context) => {
  const { storage, db } = context;
  let prepared = await prepareFindAndModify(command, context);
  let target: Document | undefined;
  for (let attempt = 0; ; attempt++) {
    const [match] = prepared.outcome.docs;
    const current = match && prepared.collection?.getById(match._id);
    // The match is used if it is still the stored version, or its new version still matches.
    target = current && (current === match || prepared.query.matcher.test(current)) ? current : undefined;
    if (target || !match || attempt >= RETRIES) break;
    prepared = await prepareFindAndModify(command, context);
  }
  const { name, remove, returnNew, upsert, collection, query, projector } = prepared;
  const present = (doc: Document | null): Document | null => (doc && projector ? projector(doc) : doc);

  if (remove) {
    if (!target || !collection) return { lastErrorObject: { n: 0 }, value: null, ok: 1 };
    collection.remove(target);
    return { lastErrorObject: { n: 1 }, value: present(target), ok: 1 };
  }

  const update = parseUpdate(command.update);
  const arrayFilters = Array.isArray(command.arrayFilters) ? (command.arrayFilters as Document[]) : undefined;
  if (target && collection) {
    const result = applyUpdate(target, update, { filter: query.matcher.filter, arrayFilters, isInsert: false, query: query.options });
    if (result.modified) collection.replace(target, result.doc);
    return {
      lastErrorObject: { n: 1, updatedExisting: true },
      value: present(returnNew ? result.doc : target),
      ok: 1,
    };
  }
  if (!upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const inserted = upsertInsert(storage, db, name, query.rawFilter, update, arrayFilters, query.options);
  return {
    lastErrorObject: { n: 1, updatedExisting: false, upserted: inserted._id },
    value: returnNew ? present(inserted) : null,
    ok: 1,
  };
};

/** explain of findAndModify: planned and run without changing anything. */
export async function explainFindAndModify(command: Document, context: CommandContext, explain: ExplainContext): Promise<Document> {
  const { remove, query, outcome } = await prepareFindAndModify(command, context);
  const [target] = outcome.docs;
  if (remove) return explainQuery(explain, outcome, { root: writeRoot('DELETE', { nWouldDelete: target ? 1 : 0 }), nReturned: 0 });
  const update = parseUpdate(command.update);
  const arrayFilters = Array.isArray(command.arrayFilters) ? (command.arrayFilters as Document[]) : undefined;
  const wouldModify = target
    ? applyUpdate(target, update, { filter: query.matcher.filter, arrayFilters, isInsert: false, query: query.options }).modified
    : false;
  const stats = { nMatched: target ? 1 : 0, nWouldModify: wouldModify ? 1 : 0, nWouldUpsert: !target && command.upsert === true ? 1 : 0 };
  return explainQuery(explain, outcome, { root: writeRoot('UPDATE', stats), nReturned: 0 });
}

export const findAndModifyCommands: Record<string, CommandHandler> = {
  findAndModify,
  findandmodify: findAndModify,
};
