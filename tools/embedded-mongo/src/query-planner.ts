import { formatDocument, formatValue, isPlainObject, type Document } from './bson-values';
import { containsString, isOperatorObject } from './collation';
import type { Collection } from './collection';
import { CommandError, commandError } from './errors';
import { holdsEveryDocument, type IndexState } from './index-state';
import { encodeValue } from './key-encoding';
import { fieldBounds, filterPredicates, indexBounds, type FieldBounds, type IndexBounds } from './query-bounds';
import type { QueryRequest } from './query-request';

export type AccessPlan =
  | { kind: 'eof' }
  | { kind: 'idhack'; idKey: string }
  | { kind: 'collscan'; direction: 1 | -1 }
  | {
      kind: 'ixscan';
      index: IndexState;
      bounds: IndexBounds;
      direction: 1 | -1;
      /** The index order is the requested sort order (no SORT stage). */
      providesSort: boolean;
      /** The bounds express the whole filter: no document needs re-checking. */
      covered: boolean;
    };

export type IndexScanPlan = Extract<AccessPlan, { kind: 'ixscan' }>;

export const NOTABLESCAN_REASON = "No indexed plans available, and running with 'notablescan'";

const INTERNAL_DATABASES = new Set(['admin', 'local', 'config']);

/** mongod's exemptions from notablescan: an empty filter, system collections, internal databases. */
export function tableScanForbidden(request: QueryRequest, notablescan: boolean): boolean {
  if (!notablescan || Object.keys(request.filter).length === 0) return false;
  const [db, ...rest] = request.ns.split('.');
  return !INTERNAL_DATABASES.has(db) && !rest.join('.').startsWith('system.');
}

function describeCondition(path: string, op: string, value: unknown): string {
  if (op === '$in' && Array.isArray(value)) return `${path} $in [ ${value.map(formatValue).join(' ')} ]`;
  return `${path} ${op} ${formatValue(value)}`;
}

/** mongod's debug form of a filter (CanonicalQuery's "Tree:"). */
function describeTree(filter: Document): string {
  const lines: string[] = [];
  for (const [path, value] of Object.entries(filter)) {
    if (path.startsWith('$')) lines.push(`${path} ${formatValue(value)}`);
    else if (isOperatorObject(value)) for (const [op, argument] of Object.entries(value)) lines.push(describeCondition(path, op, argument));
    else lines.push(describeCondition(path, '$eq', value));
  }
  if (lines.length === 1) return `${lines[0]}\n`;
  return `$and\n${lines.map((line) => `    ${line}\n`).join('')}`;
}

/** The error mongod wraps planning failures in ("error processing query: ns=... planner returned error"). */
export function planningError(request: QueryRequest, code: 'NoQueryExecutionPlans' | 'BadValue', reason: string): CommandError {
  let text = `ns=${request.ns}`;
  if (request.batchSize !== undefined) text += ` batchSize=${request.batchSize}`;
  if (request.limit) text += ` limit=${request.limit}`;
  if (request.skip) text += ` skip=${request.skip}`;
  text +=
    `Tree: ${describeTree(request.filter)}Sort: ${formatDocument(request.sort ?? {})}\nProj: ` +
    `${formatDocument(request.projection ?? {})}\n`;
  if (request.collationSpec) text += `Collation: ${formatDocument(request.collationSpec)}\n`;
  return commandError(code, `error processing query: ${text} planner returned error :: caused by :: ${reason}`);
}

/** 1 = the index order is the sort, -1 = its reverse, 0 = a SORT stage is needed. */
function sortDirection(index: IndexState, bounds: IndexBounds, request: QueryRequest): 0 | 1 | -1 {
  const sort = Object.entries(request.sort ?? {}).filter(([field]) => !bounds.singlePointPaths.has(field));
  if (sort.length === 0) return 1;
  if (request.collationLevel !== 0 || index.level !== 0) return 0;
  let direction: 0 | 1 | -1 = 0;
  let next = 0;
  for (let i = 0; i < index.fields.length && next < sort.length; i++) {
    const [field, order] = sort[next];
    if (index.fields[i] === field) {
      if (index.multikeyFields[i]) return 0;
      const relative = order === index.directions[i] ? 1 : -1;
      if (direction !== 0 && direction !== relative) return 0;
      direction = relative;
      next++;
    } else if (!bounds.singlePointPaths.has(index.fields[i])) return 0;
  }
  return next === sort.length ? direction : 0;
}

function includesNull(bounds: FieldBounds): boolean {
  const nullKey = encodeValue(null);
  return bounds.intervals.some((interval) => {
    const low = interval.low.inclusive ? interval.low.enc : `${interval.low.enc}\u0100`;
    const high = interval.high.inclusive ? `${interval.high.enc}\u0100` : interval.high.enc;
    return low <= nullKey && nullKey < high;
  });
}

/** The plan for one index, or null when the index cannot serve the query. */
function indexPlan(index: IndexState, request: QueryRequest, hinted: boolean): IndexScanPlan | null {
  if (index.partialFilter && !hinted) return null;
  const predicates = filterPredicates(request.filter);
  const perField = index.fields.map((field, i) => fieldBounds(predicates.fields.get(field), index, i, request.collationLevel));
  let bounds = indexBounds(index, perField, 1);
  const direction = sortDirection(index, bounds, request);
  const relevant = perField[0] !== null || (direction !== 0 && request.sort !== undefined && !index.partialFilter);
  if (!relevant && !hinted) return null;
  if (index.sparse && !hinted && !perField.slice(0, bounds.boundedFields).some((field) => field && !includesNull(field))) return null;
  if (direction === -1) bounds = indexBounds(index, perField, -1);
  const covered =
    !predicates.residual &&
    !index.isMultikey &&
    holdsEveryDocument(index) &&
    [...predicates.fields.keys()].every((path) => bounds.exactPaths.has(path));
  return { kind: 'ixscan', index, bounds, direction: direction === -1 ? -1 : 1, providesSort: direction !== 0, covered };
}

function idHackKey(collection: Collection, request: QueryRequest): string | null {
  const keys = Object.keys(request.filter);
  if (keys.length !== 1 || keys[0] !== '_id' || request.hint !== undefined) return null;
  let value = request.filter._id;
  if (isOperatorObject(value)) {
    if (Object.keys(value).length !== 1 || !('$eq' in value)) return null;
    value = value.$eq;
  }
  if (value === null || value === undefined || Array.isArray(value) || value instanceof RegExp || isOperatorObject(value)) return null;
  if (isPlainObject(value) && Object.keys(value).length === 0) return null;
  if (containsString(value) && request.collationLevel !== collection.idIndex.level) return null;
  return collection.idKeyOf(value);
}

function hintedIndex(collection: Collection, request: QueryRequest): IndexState | 'natural' | null {
  const { hint } = request;
  if (hint === undefined || hint === null) return null;
  if (isPlainObject(hint) && Object.keys(hint).length === 0) return null;
  if (isPlainObject(hint) && '$natural' in hint) return 'natural';
  const wanted = typeof hint === 'string' ? (index: IndexState) => index.spec.name === hint : null;
  const byKey = isPlainObject(hint) ? encodeValue(hint) : null;
  const found = collection.allIndexes.find((index) => (wanted ? wanted(index) : encodeValue(index.spec.key) === byKey));
  if (!found) throw planningError(request, 'BadValue', 'hint provided does not correspond to an existing index');
  return found;
}

export interface PlanChoice {
  candidates: AccessPlan[];
  /** Set when the choice needs no trial (a hint, a single candidate, an `_id` lookup, ...). */
  decided: AccessPlan | null;
}

/** Every plan mongod would consider for the query (COLLSCAN only when no index applies). */
export function candidatePlans(collection: Collection | undefined, request: QueryRequest, notablescan: boolean): PlanChoice {
  if (!collection) return { candidates: [], decided: { kind: 'eof' } };
  const hint = hintedIndex(collection, request);
  const forbidden = tableScanForbidden(request, notablescan);
  if (hint === 'natural') {
    if (forbidden) throw planningError(request, 'NoQueryExecutionPlans', "hint $natural is not allowed, because 'notablescan' is enabled");
    const direction = (request.hint as Document).$natural === -1 ? -1 : 1;
    return { candidates: [], decided: { kind: 'collscan', direction } };
  }
  if (hint) return { candidates: [], decided: indexPlan(hint, request, true) };
  const idKey = idHackKey(collection, request);
  if (idKey !== null) return { candidates: [], decided: { kind: 'idhack', idKey } };
  const candidates = collection.allIndexes
    .map((index) => indexPlan(index, request, false))
    .filter((plan): plan is IndexScanPlan => plan !== null);
  if (candidates.length === 0) {
    if (forbidden) throw planningError(request, 'NoQueryExecutionPlans', NOTABLESCAN_REASON);
    return { candidates: [], decided: { kind: 'collscan', direction: 1 } };
  }
  if (candidates.length === 1) return { candidates, decided: candidates[0] };
  // Equality on every field of a unique index finds at most one document per value.
  const uniqueLookup = candidates.find(
    (plan) => plan.index.unique && !plan.index.isMultikey && plan.bounds.fixedFields === plan.index.fields.length,
  );
  return { candidates, decided: uniqueLookup ?? null };
}
