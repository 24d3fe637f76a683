import type { Document } from './bson-values';
import { WHOLE_DOCUMENTS, type Collection, type Fetch } from './collection';
import { commandError } from './errors';
import type { IndexCursor } from './index-state';
import type { Operation } from './operation';
import type { Matcher } from './query-engine';
import { planCacheKey } from './plan-cache';
import { candidatePlans, type AccessPlan } from './query-planner';
import type { QueryRequest } from './query-request';
import { FieldSelection } from './record-codec';

/** Counters of one plan's execution (what explain's executionStats reports). */
export interface ScanStats {
  works: number;
  advanced: number;
  keysExamined: number;
  seeks: number;
  docsExamined: number;
  dupsTested: number;
  dupsDropped: number;
  isEOF: boolean;
}

const newStats = (): ScanStats => ({
  works: 0,
  advanced: 0,
  keysExamined: 0,
  seeks: 0,
  docsExamined: 0,
  dupsTested: 0,
  dupsDropped: 0,
  isEOF: false,
});

const EOF = Symbol('eof');

const NO_FIELDS = new FieldSelection([]);

/** What a trial or a count needs of a document: whether it matches (the fields the filter reads, if any). */
export function matchOnly(matcher: Matcher): Fetch {
  return { fields: matcher.isEmpty ? NO_FIELDS : matcher.fields, forWrite: false };
}

/** Runs one access plan a unit of work at a time (an index key or a document per call). */
export class PlanRunner {
  readonly stats = newStats();
  private readonly source: IndexCursor | Iterator<string> | null;
  private readonly seen: Set<string> | null;

  constructor(
    readonly plan: AccessPlan,
    private readonly collection: Collection | undefined,
    private readonly matcher: Matcher,
    /** What to decode of the documents it returns (see Collection.fetchMatching). */
    private readonly fetch: Fetch = WHOLE_DOCUMENTS,
  ) {
    this.seen = plan.kind === 'ixscan' && plan.index.isMultikey ? new Set() : null;
    if (!collection || plan.kind === 'eof' || plan.kind === 'idhack') this.source = null;
    else if (plan.kind === 'collscan') {
      this.source = collection.idKeys(plan.direction);
    } else this.source = plan.index.cursor(plan.bounds.ranges, plan.direction, this.stats);
  }

  /**
   * Called after a yield: the plan goes on unless its collection or index was dropped meanwhile
   * (mongod's QueryPlanKilled). A collection scan's Map iterator and an index cursor both follow
   * the changes made in between.
   */
  restore(): void {
    if (this.collection?.dropped) throw commandError('QueryPlanKilled', 'collection dropped during query');
    if (this.plan.kind === 'ixscan' && this.plan.index.dropped) {
      throw commandError('QueryPlanKilled', `query plan killed :: caused by :: index '${this.plan.index.spec.name}' dropped`);
    }
  }

  /** The next matching document, null when this unit of work produced none, EOF at the end. */
  work(): Document | null | typeof EOF {
    const { stats, plan } = this;
    stats.works++;
    if (plan.kind === 'idhack') {
      if (stats.isEOF) return EOF;
      stats.isEOF = true;
      const doc = this.collection?.fetchMatching(plan.idKey, null, this.fetch) ?? undefined;
      stats.keysExamined = doc ? 1 : 0;
      stats.docsExamined = doc ? 1 : 0;
      if (doc) stats.advanced++;
      return doc ?? EOF;
    }
    if (!this.source) {
      stats.isEOF = true;
      return EOF;
    }
    const collection = this.collection as Collection;
    let doc: Document | null | undefined;
    if (plan.kind === 'ixscan') {
      const idKey = (this.source as IndexCursor).next();
      if (idKey === undefined) {
        stats.isEOF = true;
        return EOF;
      }
      if (this.seen) {
        stats.dupsTested++;
        if (this.seen.has(idKey)) {
          stats.dupsDropped++;
          return null;
        }
        this.seen.add(idKey);
      }
      doc = collection.fetchMatching(idKey, plan.covered ? null : this.matcher, this.fetch);
      if (doc === undefined) return null;
      stats.docsExamined++;
      if (doc === null) return null;
    } else {
      // A document removed since the walk started (a reverse walk's keys are those of its start) is passed over.
      do {
        const next = (this.source as Iterator<string>).next();
        if (next.done) {
          stats.isEOF = true;
          return EOF;
        }
        doc = collection.fetchMatching(next.value, this.matcher, this.fetch);
      } while (doc === undefined);
      stats.docsExamined++;
      if (doc === null) return null;
    }
    stats.advanced++;
    return doc;
  }

  /** Whether results come out in the requested order (no SORT stage needed). */
  get providesSort(): boolean {
    const { plan } = this;
    return plan.kind !== 'collscan' && (plan.kind !== 'ixscan' || plan.providesSort);
  }
}

/** mongod's trial budget and the number of results that ends a trial early. */
const TRIAL_WORKS = 10_000;
const TRIAL_RESULTS = 101;

export interface PlanSelection {
  winner: AccessPlan;
  rejected: AccessPlan[];
  /** Plan cache key when the winner came from the cache (its cost is checked after the run). */
  cachedAs?: string;
}

function tieBreak(a: PlanRunner, b: PlanRunner): number {
  const rank = (runner: PlanRunner): number[] => {
    const plan = runner.plan;
    if (plan.kind !== 'ixscan') return [0, 0, 0, 0];
    return [plan.providesSort ? 1 : 0, plan.covered ? 1 : 0, plan.bounds.fixedFields, -plan.index.fields.length];
  };
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return y[i] - x[i];
  return 0;
}

/**
 * Chooses among candidate plans like mongod's multi-planner: each runs in turn, one unit of
 * work at a time, until one reaches the end or produces enough results; otherwise the most
 * productive wins. Plans needing a SORT produce nothing until their end. Deterministic.
 */
export async function selectPlan(
  op: Operation,
  collection: Collection | undefined,
  request: QueryRequest,
  matcher: Matcher,
  notablescan: boolean,
  sorted: boolean,
): Promise<PlanSelection> {
  const { candidates, decided } = candidatePlans(collection, request, notablescan);
  if (decided) return { winner: decided, rejected: candidates.filter((plan) => plan !== decided) };
  const cacheKey = planCacheKey(request);
  const cached = op.usesPlanCache ? collection?.planCache.get(cacheKey) : undefined;
  const hit =
    cached &&
    candidates.find((plan) => plan.kind === 'ixscan' && plan.index.spec.name === cached.indexName && plan.direction === cached.direction);
  if (hit) return { winner: hit, rejected: candidates.filter((plan) => plan !== hit), cachedAs: cacheKey };
  const trialFetch = matchOnly(matcher);
  const runners = candidates.map((plan) => new PlanRunner(plan, collection, matcher, trialFetch));
  const produced = runners.map(() => 0);
  const goal = Math.min(TRIAL_RESULTS, request.limit ? request.limit + (request.skip ?? 0) : TRIAL_RESULTS);
  let winner: PlanRunner | undefined;
  for (let round = 0; round < TRIAL_WORKS && !winner; round++) {
    for (const [i, runner] of runners.entries()) {
      const result = runner.work();
      if (result === EOF) {
        winner = runner;
        break;
      }
      if (result && (!sorted || runner.providesSort)) produced[i]++;
      if (produced[i] >= goal) {
        winner = runner;
        break;
      }
    }
    if (!winner && op.tick()) {
      await op.yieldTurn();
      for (const runner of runners) runner.restore();
    }
  }
  if (!winner) {
    const order = runners.map((runner, i) => ({ runner, productivity: produced[i] / runner.stats.works }));
    order.sort((a, b) => b.productivity - a.productivity || tieBreak(a.runner, b.runner));
    winner = order[0].runner;
  }
  const chosen = winner.plan;
  if (chosen.kind === 'ixscan')
    collection?.planCache.set(cacheKey, { indexName: chosen.index.spec.name, direction: chosen.direction, works: winner.stats.works });
  return { winner: chosen, rejected: candidates.filter((plan) => plan !== chosen) };
}

export interface Execution {
  /** Matching documents, in the plan's order (not yet sorted, skipped or limited). */
  docs: Document[];
  stats: ScanStats;
  runner: PlanRunner;
}

/**
 * Runs a chosen plan; stops after `stopAfter` results when the plan already yields the sort order.
 * `fetch`: what to decode of the matching documents (all of them unless told). With `sink`, each
 * matching document goes to it as it is found and `docs` stays empty: a consumer that reduces them
 * (a `$group`) lets them go at once instead of holding every one until the end.
 */
export async function executePlan(
  op: Operation,
  plan: AccessPlan,
  collection: Collection | undefined,
  matcher: Matcher,
  stopAfter: number | undefined,
  fetch: Fetch = WHOLE_DOCUMENTS,
  sink?: (doc: Document) => void,
): Promise<Execution> {
  const runner = new PlanRunner(plan, collection, matcher, fetch);
  const docs: Document[] = [];
  const limit = stopAfter ?? Number.POSITIVE_INFINITY;
  while (docs.length < limit) {
    const result = runner.work();
    if (result === EOF) break;
    if (result) {
      if (sink) sink(result);
      else docs.push(result);
    }
    if (op.tick()) {
      await op.yieldTurn();
      runner.restore();
    }
  }
  return { docs, stats: runner.stats, runner };
}

/** Counts matching documents; a covered, non-multikey index scan counts keys without fetching. */
export async function countPlan(
  op: Operation,
  plan: AccessPlan,
  collection: Collection | undefined,
  matcher: Matcher,
): Promise<{ n: number; stats: ScanStats; countScan: boolean }> {
  if (plan.kind === 'ixscan' && plan.covered) {
    const stats = newStats();
    const keys = plan.index.cursor(plan.bounds.ranges, plan.direction, stats);
    let n = 0;
    while (keys.next() !== undefined) {
      n++;
      if (op.tick()) {
        await op.yieldTurn();
        if (collection?.dropped || plan.index.dropped) throw commandError('QueryPlanKilled', 'collection or index dropped during count');
      }
    }
    stats.works = n + 1;
    stats.advanced = n;
    stats.isEOF = true;
    return { n, stats, countScan: true };
  }
  const { docs, stats } = await executePlan(op, plan, collection, matcher, undefined, matchOnly(matcher));
  return { n: docs.length, stats, countScan: false };
}
