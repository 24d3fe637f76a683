import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../api/problem';
import { isEmptyData, loadView } from './load-state';

const problem = new ApiError(503, 'SERVER_BUSY', 'Try again in a moment.');

describe('loader states', () => {
  it('counts as empty an empty list, a page of no items, and no answer', () => {
    expect(isEmptyData([])).toBe(true);
    expect(isEmptyData({ items: [], nextCursor: null })).toBe(true);
    expect(isEmptyData(undefined)).toBe(true);
    expect(isEmptyData(null)).toBe(true);
    expect(isEmptyData([1])).toBe(false);
    expect(isEmptyData({ items: [1] })).toBe(false);
    expect(isEmptyData({ total: 0 })).toBe(false);
    expect(isEmptyData(0)).toBe(false);
  });

  it('shows loading before the first answer, then the data, or its empty state', () => {
    expect(loadView({ loading: true })).toEqual({ kind: 'loading' });
    expect(loadView({ loading: false, data: [1, 2] })).toEqual({ kind: 'data', data: [1, 2] });
    expect(loadView({ loading: false, data: [] })).toEqual({ kind: 'empty', data: [] });
    expect(loadView({ loading: false, data: { items: [] } })).toEqual({ kind: 'empty', data: { items: [] } });
  });

  it('shows a problem before anything else, even over data kept from an earlier answer', () => {
    expect(loadView({ loading: false, error: problem })).toEqual({ kind: 'error', error: problem });
    expect(loadView({ loading: false, error: problem, data: [1] })).toEqual({ kind: 'error', error: problem });
  });

  it('keeps showing the data while it reloads (no flash of the spinner)', () => {
    expect(loadView({ loading: true, data: [1] })).toEqual({ kind: 'data', data: [1] });
    expect(loadView({ loading: true, data: [] })).toEqual({ kind: 'empty', data: [] });
  });

  it('takes the page’s own idea of empty, or none at all', () => {
    const costs = { series: [] as number[], total: 0 };
    expect(loadView({ loading: false, data: costs }, (data) => data.series.length === 0).kind).toBe('empty');
    expect(loadView({ loading: false, data: costs }).kind).toBe('data');
    expect(loadView({ loading: false, data: [] }, false)).toEqual({ kind: 'data', data: [] });
    expect(loadView({ loading: false, data: undefined }, false)).toEqual({ kind: 'data', data: undefined });
    expect(loadView({ loading: false, data: undefined }).kind).toBe('empty');
  });
});
