import { costasset, unwrap } from '../api/client';
import type { Costs } from '../api/types';

/** The overview's main question: 12 months by provider (the API's default range). */
const trendQuery = { groupBy: ['providerName'], top: 8 };

let early: Promise<Costs> | undefined;

/** Asked at start-up, in parallel with `/me` and the page's code, when the overview is the first page. */
export function prefetchOverview(): void {
  early = unwrap(costasset.GET('/api/costasset/v1/costs', { params: { query: trendQuery } }));
  early.catch(() => undefined);
}

/** The prefetched answer the first time, a new request afterwards. */
export function overviewTrend(): Promise<Costs> {
  const answer = early ?? unwrap(costasset.GET('/api/costasset/v1/costs', { params: { query: trendQuery } }));
  early = undefined;
  return answer;
}
