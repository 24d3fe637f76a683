import type { ApiError } from '../api/problem';

/** What a loader shows of an answer that is awaited, failed, empty or there. */
export type LoadView<T> = { kind: 'loading' } | { kind: 'error'; error: ApiError } | { kind: 'empty'; data: T } | { kind: 'data'; data: T };

/** No rows: an empty list, a page of no `items`, or no answer at all (`undefined`, `null`). */
export function isEmptyData(data: unknown): boolean {
  if (data === undefined || data === null) return true;
  if (Array.isArray(data)) return data.length === 0;
  if (typeof data === 'object' && Array.isArray((data as { items?: unknown }).items))
    return (data as { items: unknown[] }).items.length === 0;
  return false;
}

/**
 * The state to show: a problem first (a reload clears it), then the data as long as there is some
 * (kept while a reload runs, so the page does not flash), `loading` before the first answer.
 * `isEmpty` false never shows the empty state.
 */
export function loadView<T>(
  state: { data?: T; error?: ApiError; loading: boolean },
  isEmpty: ((data: T) => boolean) | false = isEmptyData,
): LoadView<T> {
  if (state.error) return { kind: 'error', error: state.error };
  if (state.data === undefined)
    return state.loading
      ? { kind: 'loading' }
      : isEmpty
        ? { kind: 'empty', data: state.data as T }
        : { kind: 'data', data: state.data as T };
  return isEmpty && isEmpty(state.data) ? { kind: 'empty', data: state.data } : { kind: 'data', data: state.data };
}
