import { describe, expect, it } from '@jest/globals';
import { chosen, hrefOf, intWithin, oneOf } from './url-state';

describe('page state in the address', () => {
  it('writes the values given, in order, encoded, leaving out missing ones and defaults', () => {
    expect(hrefOf('/budgets', { budget: 'Azure run rate' })).toBe('/budgets?budget=Azure+run+rate');
    expect(hrefOf('/explorer', { groupBy: 'a,b', filter: 'x == "1" && y', top: 10, chart: 'bar' }, { top: '10', chart: 'bar' })).toBe(
      '/explorer?groupBy=a%2Cb&filter=x+%3D%3D+%221%22+%26%26+y',
    );
    expect(hrefOf('/explorer', { groupBy: '', filter: undefined, from: null })).toBe('/explorer?groupBy=');
    expect(hrefOf('/report-models', {})).toBe('/report-models');
    expect(hrefOf('/x', { top: 20 }, { top: '10' })).toBe('/x?top=20');
  });

  it('reads back what it wrote (as the router parses the address)', () => {
    const href = hrefOf('/budgets', { budget: 'a&b=c d/é' });
    expect(Object.fromEntries(new URL(href, 'http://console').searchParams)).toEqual({ budget: 'a&b=c d/é' });
  });

  it('picks the item the address names, the first one otherwise', () => {
    const items = [{ id: 'a' }, { id: 'b' }];
    expect(chosen(items, 'b', (item) => item.id)).toBe(items[1]);
    expect(chosen(items, 'gone', (item) => item.id)).toBe(items[0]);
    expect(chosen(items, undefined, (item) => item.id)).toBe(items[0]);
    expect(chosen([], 'a', (item: { id: string }) => item.id)).toBeUndefined();
    expect(chosen(undefined, 'a', (item: { id: string }) => item.id)).toBeUndefined();
  });

  it('takes only a known value of a choice', () => {
    expect(oneOf('day', ['month', 'day'], 'month')).toBe('day');
    expect(oneOf('week', ['month', 'day'], 'month')).toBe('month');
    expect(oneOf(undefined, ['month', 'day'], 'month')).toBe('month');
  });

  it('keeps a number within its bounds, the default for none', () => {
    expect(intWithin('20', 1, 50, 10)).toBe(20);
    expect(intWithin('500', 1, 50, 10)).toBe(50);
    expect(intWithin('-5', 1, 50, 10)).toBe(1);
    expect(intWithin('7.9', 1, 50, 10)).toBe(7);
    expect(intWithin(undefined, 1, 50, 10)).toBe(10);
    expect(intWithin('', 1, 50, 10)).toBe(10);
    expect(intWithin('ten', 1, 50, 10)).toBe(10);
    expect(intWithin('0', 1, 50, 10)).toBe(10);
  });
});
