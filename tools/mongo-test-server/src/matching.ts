import type { Document } from './bson-values';
import { resolveCollation, type ResolvedCollation } from './collation';
import type { Collection } from './collection';
import { compileFilter, sortDocuments, type Matcher, type QueryOptions } from './query-engine';

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

/**
 * Documents matching a query, in natural order unless `sort` is given. Uses an O(1) lookup
 * when the filter pins `_id` or a unique index, and stops early when `limit` allows it.
 */
export function findMatching(
  collection: Collection | undefined,
  query: PreparedQuery,
  sort?: Record<string, 1 | -1>,
  limit?: number,
): Document[] {
  if (!collection) return [];
  const level = query.options.collation?.level ?? 0;
  const candidates = collection.lookupCandidates(query.rawFilter, level) ?? collection.allDocuments();
  const stopAt = !sort && limit !== undefined && limit > 0 ? limit : Number.POSITIVE_INFINITY;
  const matched: Document[] = [];
  for (const doc of candidates) {
    if (!query.matcher.test(doc)) continue;
    matched.push(doc);
    if (matched.length >= stopAt) break;
  }
  return sort ? sortDocuments(matched, sort, query.options) : matched;
}
