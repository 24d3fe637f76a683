import type { Document } from './bson-values';
import { resolveCollation, type ResolvedCollation } from './collation';
import type { Collection, Fetch } from './collection';
import type { Operation } from './operation';
import type { ServerParameters } from './parameters';
import { compileFilter, sortDocuments, type Matcher, type QueryOptions } from './query-engine';
import { countPlan, executePlan, selectPlan, type Execution, type PlanSelection, type ScanStats } from './query-execution';
import type { QueryRequest } from './query-request';

/** The collation a command runs with: its own, else the collection's default. */
export function effectiveCollation(raw: unknown, collection: Collection | undefined): ResolvedCollation | null {
  if (raw !== undefined && raw !== null) return resolveCollation(raw);
  return collection?.collation ?? null;
}

export interface PreparedQuery {
  matcher: Matcher;
  rawFilter: Document;
  options: QueryOptions;
}

export function prepareQuery(rawFilter: unknown, collation: ResolvedCollation | null, variables?: Document): PreparedQuery {
  const options: QueryOptions = { collation, variables };
  const matcher = compileFilter(rawFilter, options);
  return { matcher, rawFilter: (rawFilter ?? {}) as Document, options };
}

/** How a command wants its matches: order, window, index hint (and what error messages show). */
export interface QueryShape {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
  hint?: unknown;
  projection?: Document;
  batchSize?: number;
}

export interface QueryOutcome {
  /** Matching documents, sorted, skipped and limited as asked. */
  docs: Document[];
  request: QueryRequest;
  selection: PlanSelection;
  execution: Execution;
  /** A SORT stage ordered the documents (the plan did not yield the order). */
  sortStage: boolean;
  millis: number;
}

function queryRequest(ns: string, query: PreparedQuery, shape: QueryShape): QueryRequest {
  const collation = query.options.collation;
  return {
    ns,
    filter: query.rawFilter,
    sort: shape.sort,
    projection: shape.projection,
    skip: shape.skip || undefined,
    limit: shape.limit || undefined,
    batchSize: shape.batchSize,
    hint: shape.hint,
    collationLevel: collation?.level ?? 0,
    collationSpec: collation?.spec,
  };
}

/**
 * Plans and runs a query: chooses an index (or a collection scan) like mongod, fetches the
 * matching documents, sorts them unless the index yields the order, then applies skip/limit.
 * `fetch`: what to decode of the matching documents (whole, unless a write asks for less); `sink`:
 * their consumer, which then gets them one by one instead of `docs` (see executePlan).
 */
export async function runQuery(
  op: Operation,
  parameters: ServerParameters,
  ns: string,
  collection: Collection | undefined,
  query: PreparedQuery,
  shape: QueryShape = {},
  fetch?: Fetch,
  sink?: (doc: Document) => void,
): Promise<QueryOutcome> {
  const started = performance.now();
  const request = queryRequest(ns, query, shape);
  const sorted = shape.sort !== undefined;
  if (sink && (sorted || shape.skip || shape.limit)) throw new Error('a query feeding a consumer neither sorts, skips nor limits');
  const selection = await selectPlan(op, collection, request, query.matcher, parameters.notablescan, sorted);
  const winner = selection.winner;
  const providesSort = winner.kind === 'idhack' || winner.kind === 'eof' || (winner.kind === 'ixscan' && winner.providesSort);
  const sortStage = sorted && !providesSort;
  const skip = shape.skip ?? 0;
  const window = shape.limit ? skip + shape.limit : undefined;
  const execution = await executePlan(op, winner, collection, query.matcher, sortStage ? undefined : window, fetch, sink);
  if (selection.cachedAs) collection?.planCache.checkCost(selection.cachedAs, execution.stats.works);
  let docs = sortStage ? sortDocuments(execution.docs, shape.sort as Record<string, 1 | -1>, query.options) : execution.docs;
  if (skip > 0 || shape.limit) docs = docs.slice(skip, window);
  return { docs, request, selection, execution, sortStage, millis: performance.now() - started };
}

export interface CountOutcome {
  n: number;
  request: QueryRequest;
  selection: PlanSelection;
  stats: ScanStats;
  countScan: boolean;
  millis: number;
}

/** Counts matches; a filter the index bounds express completely is counted on index keys only. */
export async function countQuery(
  op: Operation,
  parameters: ServerParameters,
  ns: string,
  collection: Collection | undefined,
  query: PreparedQuery,
  hint?: unknown,
): Promise<CountOutcome> {
  const started = performance.now();
  const request = queryRequest(ns, query, { hint });
  const selection = await selectPlan(op, collection, request, query.matcher, parameters.notablescan, false);
  const { n, stats, countScan } = await countPlan(op, selection.winner, collection, query.matcher);
  if (selection.cachedAs) collection?.planCache.checkCost(selection.cachedAs, stats.works);
  return { n, request, selection, stats, countScan, millis: performance.now() - started };
}
