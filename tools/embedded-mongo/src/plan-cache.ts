import { formatDocument, isPlainObject, type Document } from './bson-values';
import { encodeValue } from './key-encoding';
import type { QueryRequest } from './query-request';

/**
 * mongod's plan cache, simplified: the index a trial chose for a query shape (the filter's fields
 * and operators, not its values; sort; projection; collation; whether a limit applies) is reused
 * for the next query of that shape, without a trial. An entry is dropped when its plan needed
 * more than ten times the work it did in its trial (the data changed), and every entry of a
 * collection when one of its indexes is created or dropped.
 */
export interface CachedPlan {
  indexName: string;
  direction: 1 | -1;
  /** Units of work the winner needed in its trial. */
  works: number;
}

function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return ['array'];
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.some((key) => key.startsWith('$'))) {
      return Object.fromEntries(
        keys.map((key) => [
          key,
          key === '$and' || key === '$or' || key === '$nor' || key === '$elemMatch' || key === '$not'
            ? shapeOf(value[key])
            : encodeValue(value[key])[0],
        ]),
      );
    }
    return Object.fromEntries(keys.map((key) => [key, shapeOf(value[key])]));
  }
  return encodeValue(value)[0];
}

export function planCacheKey(request: QueryRequest): string {
  const filter = Object.fromEntries(Object.entries(request.filter).map(([key, value]) => [key, shapeOf(value)]));
  return [
    formatDocument(filter as Document),
    formatDocument(request.sort ?? {}),
    Object.keys(request.projection ?? {}).join(','),
    request.collationLevel,
    request.limit ? 'limit' : '',
  ].join('|');
}

export class PlanCache {
  private readonly entries = new Map<string, CachedPlan>();

  get(key: string): CachedPlan | undefined {
    return this.entries.get(key);
  }

  set(key: string, plan: CachedPlan): void {
    if (this.entries.size >= 5_000) this.entries.clear();
    this.entries.set(key, plan);
  }

  /** Called after a cached plan ran: a plan far costlier than in its trial is planned again next time. */
  checkCost(key: string, works: number): void {
    const cached = this.entries.get(key);
    if (cached && works > 10 * cached.works + 100) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
