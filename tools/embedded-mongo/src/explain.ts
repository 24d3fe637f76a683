import * as zlib from 'node:zlib';
import { formatDocument, isPlainObject, type Document } from './bson-values';
import { isOperatorObject } from './collation';
import { commandError } from './errors';
import type { CountOutcome, QueryOutcome } from './matching';
import type { ScanStats } from './query-execution';
import type { AccessPlan } from './query-planner';
import type { QueryRequest } from './query-request';
import { SERVER_VERSION } from './commands/handshake';

export type Verbosity = 'queryPlanner' | 'executionStats' | 'allPlansExecution';

export function parseVerbosity(raw: unknown): Verbosity {
  if (raw === undefined || raw === null) return 'allPlansExecution';
  if (raw === 'queryPlanner' || raw === 'executionStats' || raw === 'allPlansExecution') return raw;
  throw commandError('FailedToParse', `verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}`);
}

/** mongod's normalised form of a filter (explain's `parsedQuery`). */
export function parsedQuery(filter: Document): Document {
  const clauses: Document[] = [];
  for (const [path, value] of Object.entries(filter)) {
    if (path.startsWith('$')) clauses.push({ [path]: value });
    else if (isOperatorObject(value)) for (const [op, argument] of Object.entries(value)) clauses.push({ [path]: { [op]: argument } });
    else clauses.push({ [path]: value instanceof RegExp ? { $regex: value.source } : { $eq: value } });
  }
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? clauses[0] : { $and: clauses };
}

function hash(text: string): string {
  return zlib.crc32(text).toString(16).toUpperCase().padStart(8, '0');
}

const stageStats = (nReturned: number, works: number, isEOF: boolean): Document => ({
  nReturned,
  executionTimeMillisEstimate: 0,
  works,
  advanced: nReturned,
  needTime: Math.max(0, works - nReturned - (isEOF ? 1 : 0)),
  needYield: 0,
  saveState: 0,
  restoreState: 0,
  isEOF: isEOF ? 1 : 0,
});

function indexDetails(plan: Extract<AccessPlan, { kind: 'ixscan' }>): Document {
  const { index } = plan;
  const multiKeyPaths: Document = {};
  index.fields.forEach((field, i) => (multiKeyPaths[field] = index.multikeyFields[i] ? [field] : []));
  return {
    keyPattern: index.spec.key,
    indexName: index.spec.name,
    ...(index.collation ? { collation: index.collation.spec } : {}),
    isMultiKey: index.isMultikey,
    multiKeyPaths,
    isUnique: index.unique,
    isSparse: index.sparse,
    isPartial: index.partialFilter !== null,
    indexVersion: 2,
    direction: plan.direction === 1 ? 'forward' : 'backward',
    indexBounds: plan.bounds.display,
  };
}

/** The stages that find the documents: COLLSCAN, IDHACK, EOF or FETCH over IXSCAN. */
export function accessStage(plan: AccessPlan, filter: Document, stats: ScanStats | null): Document {
  const parsed = parsedQuery(filter);
  const hasFilter = Object.keys(parsed).length > 0;
  const withStats = (stage: Document, extra: Document, nReturned: number): Document =>
    stats ? { ...stage, ...stageStats(nReturned, stats.works, stats.isEOF), ...extra } : stage;
  if (plan.kind === 'eof') return withStats({ stage: 'EOF' }, {}, 0);
  if (plan.kind === 'idhack')
    return withStats(
      { stage: 'IDHACK' },
      stats ? { keysExamined: stats.keysExamined, docsExamined: stats.docsExamined } : {},
      stats?.advanced ?? 0,
    );
  if (plan.kind === 'collscan') {
    const stage: Document = {
      stage: 'COLLSCAN',
      ...(hasFilter ? { filter: parsed } : {}),
      direction: plan.direction === 1 ? 'forward' : 'backward',
    };
    return withStats(stage, stats ? { docsExamined: stats.docsExamined } : {}, stats?.advanced ?? 0);
  }
  const scanReturned = stats ? stats.keysExamined - stats.dupsDropped : 0;
  const ixscan = withStats(
    { stage: 'IXSCAN', ...indexDetails(plan) },
    stats ? { keysExamined: stats.keysExamined, seeks: stats.seeks, dupsTested: stats.dupsTested, dupsDropped: stats.dupsDropped } : {},
    scanReturned,
  );
  const fetch: Document = { stage: 'FETCH', ...(hasFilter && !plan.covered ? { filter: parsed } : {}) };
  return {
    ...withStats(fetch, stats ? { docsExamined: stats.docsExamined, alreadyHasObj: 0 } : {}, stats?.advanced ?? 0),
    inputStage: ixscan,
  };
}

function wrap(stage: string, details: Document, input: Document, nReturned: number | null): Document {
  const stats = nReturned === null ? {} : stageStats(nReturned, Number(input.works ?? 0) + 1, true);
  return { stage, ...stats, ...details, inputStage: input };
}

/** find / distinct / aggregate pushdown: access, then SORT, SKIP, LIMIT and PROJECTION stages. */
function queryStages(outcome: QueryOutcome, withStats: boolean, projection?: Document): Document {
  const { request, selection, execution } = outcome;
  let stage = accessStage(selection.winner, request.filter, withStats ? execution.stats : null);
  let count = execution.docs.length;
  const counted = (n: number): number | null => (withStats ? n : null);
  if (outcome.sortStage) {
    const limitAmount = request.limit ? request.limit + (request.skip ?? 0) : undefined;
    count = limitAmount === undefined ? count : Math.min(count, limitAmount);
    const details: Document = { sortPattern: request.sort, memLimit: 104857600, ...(limitAmount ? { limitAmount } : {}), type: 'simple' };
    stage = wrap('SORT', details, stage, counted(count));
  }
  if (request.skip) {
    count = Math.max(0, count - request.skip);
    stage = wrap('SKIP', { skipAmount: request.skip }, stage, counted(count));
  }
  if (request.limit && !outcome.sortStage) {
    count = Math.min(count, request.limit);
    stage = wrap('LIMIT', { limitAmount: request.limit }, stage, counted(count));
  }
  if (projection && Object.keys(projection).length > 0) {
    const simple = Object.values(projection).every((value) => !isPlainObject(value));
    stage = wrap(simple ? 'PROJECTION_SIMPLE' : 'PROJECTION_DEFAULT', { transformBy: projection }, stage, counted(count));
  }
  return stage;
}

function queryPlanner(request: QueryRequest, winningPlan: Document, rejectedPlans: Document[]): Document {
  const shape =
    `${formatDocument(parsedQuery(request.filter))}|${formatDocument(request.sort ?? {})}|` + `${formatDocument(request.projection ?? {})}`;
  return {
    namespace: request.ns,
    indexFilterSet: false,
    parsedQuery: parsedQuery(request.filter),
    queryHash: hash(shape),
    planCacheKey: hash(`${request.ns}|${shape}`),
    maxIndexedOrSolutionsReached: false,
    maxIndexedAndSolutionsReached: false,
    maxScansToExplodeReached: false,
    winningPlan,
    rejectedPlans,
  };
}

function executionStats(nReturned: number, millis: number, stats: ScanStats, executionStages: Document, verbosity: Verbosity): Document {
  return {
    executionSuccess: true,
    nReturned,
    executionTimeMillis: Math.round(millis),
    totalKeysExamined: stats.keysExamined,
    totalDocsExamined: stats.docsExamined,
    executionStages,
    ...(verbosity === 'allPlansExecution' ? { allPlansExecution: [] } : {}),
  };
}

export interface ExplainContext {
  verbosity: Verbosity;
  /** The explained command as received. */
  command: Document;
  host: string;
  port: number;
}

function envelope(context: ExplainContext, body: Document): Document {
  return {
    explainVersion: '1',
    ...body,
    command: context.command,
    serverInfo: { host: context.host, port: context.port, version: SERVER_VERSION, gitVersion: 'embedded-mongo' },
    serverParameters: {
      internalQueryFacetBufferSizeBytes: 104857600,
      internalQueryFacetMaxOutputDocSizeBytes: 104857600,
      internalLookupStageIntermediateDocumentMaxSizeBytes: 104857600,
      internalDocumentSourceGroupMaxMemoryBytes: 104857600,
      internalQueryMaxBlockingSortMemoryUsageBytes: 104857600,
      internalQueryProhibitBlockingMergeOnMongoS: 0,
      internalQueryMaxAddToSetBytes: 104857600,
      internalDocumentSourceSetWindowFieldsMaxMemoryBytes: 104857600,
    },
    ok: 1,
  };
}

/** The queryPlanner (and executionStats) sections of a find-like query; `root` wraps the plan (UPDATE, DELETE, ...). */
export function querySections(
  outcome: QueryOutcome,
  verbosity: Verbosity,
  options: { projection?: Document; root?: (stage: Document, withStats: boolean) => Document; nReturned?: number } = {},
): Document {
  const root = options.root ?? ((stage: Document) => stage);
  const rejected = outcome.selection.rejected.map((plan) => root(accessStage(plan, outcome.request.filter, null), false));
  const planner = queryPlanner(outcome.request, root(queryStages(outcome, false, options.projection), false), rejected);
  if (verbosity === 'queryPlanner') return { queryPlanner: planner };
  const stages = root(queryStages(outcome, true, options.projection), true);
  const nReturned = options.nReturned ?? outcome.docs.length;
  return { queryPlanner: planner, executionStats: executionStats(nReturned, outcome.millis, outcome.execution.stats, stages, verbosity) };
}

export function explainQuery(context: ExplainContext, outcome: QueryOutcome, options: Parameters<typeof querySections>[2] = {}): Document {
  return envelope(context, querySections(outcome, context.verbosity, options));
}

export function explainCount(context: ExplainContext, outcome: CountOutcome | null, request: QueryRequest): Document {
  if (!outcome) {
    const planner = queryPlanner(request, { stage: 'COUNT', inputStage: { stage: 'RECORD_STORE_FAST_COUNT' } }, []);
    if (context.verbosity === 'queryPlanner') return envelope(context, { queryPlanner: planner });
    const stages = { stage: 'RECORD_STORE_FAST_COUNT', ...stageStats(0, 1, true), nCounted: 0 };
    const empty: ScanStats = {
      works: 1,
      advanced: 0,
      keysExamined: 0,
      seeks: 0,
      docsExamined: 0,
      dupsTested: 0,
      dupsDropped: 0,
      isEOF: true,
    };
    return envelope(context, { queryPlanner: planner, executionStats: executionStats(0, 0, empty, stages, context.verbosity) });
  }
  const { selection, stats, countScan, n } = outcome;
  const access = (plan: AccessPlan, withStats: boolean): Document => {
    if (countScan && plan === selection.winner && plan.kind === 'ixscan') {
      const scan: Document = { stage: 'COUNT_SCAN', ...indexDetails(plan) };
      return withStats ? { ...scan, ...stageStats(0, stats.works, true), keysExamined: stats.keysExamined } : scan;
    }
    return accessStage(plan, request.filter, withStats ? stats : null);
  };
  const count = (input: Document, withStats: boolean): Document =>
    withStats
      ? { stage: 'COUNT', ...stageStats(0, stats.works + 1, true), nCounted: n, nSkipped: 0, inputStage: input }
      : { stage: 'COUNT', inputStage: input };
  const rejected = selection.rejected.map((plan) => count(access(plan, false), false));
  const planner = queryPlanner(request, count(access(selection.winner, false), false), rejected);
  if (context.verbosity === 'queryPlanner') return envelope(context, { queryPlanner: planner });
  const stages = count(access(selection.winner, true), true);
  return envelope(context, { queryPlanner: planner, executionStats: executionStats(0, outcome.millis, stats, stages, context.verbosity) });
}

/** An aggregation whose leading stages ran as a query: `$cursor` first, then the other stages. */
export function explainAggregate(
  context: ExplainContext,
  outcome: QueryOutcome | null,
  remaining: Document[],
  nReturned: number,
): Document {
  if (!outcome) return envelope(context, { stages: remaining.map((stage) => ({ ...stage })) });
  if (remaining.length === 0) return explainQuery(context, outcome);
  const cursor = querySections(outcome, context.verbosity);
  const withCounts = context.verbosity !== 'queryPlanner';
  const stages = remaining.map((stage, i) => ({
    ...stage,
    ...(withCounts ? { nReturned: i === remaining.length - 1 ? nReturned : undefined, executionTimeMillisEstimate: 0 } : {}),
  }));
  for (const stage of stages) if (stage.nReturned === undefined) delete stage.nReturned;
  return envelope(context, {
    stages: [
      {
        $cursor: cursor,
        ...(withCounts ? { nReturned: outcome.docs.length, executionTimeMillisEstimate: Math.round(outcome.millis) } : {}),
      },
      ...stages,
    ],
  });
}
