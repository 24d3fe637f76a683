import { describe, expect, it } from '@jest/globals';
import { bucketLabel, bytes, dateTime, money, number, percent, periodOf, previousPeriod, seriesLabel } from './format';

describe('console formatting', () => {
  it('rounds money for display only, in the currency given (two decimals without one)', () => {
    expect(money(1234.5, 'USD')).toBe('$1,234.50');
    expect(money(1234.567, 'EUR')).toBe('€1,234.57');
    expect(money(-42, 'USD')).toBe('-$42.00');
    expect(money(1234.5, null)).toBe('1,234.50');
    expect(money(1234.5, undefined)).toBe('1,234.50');
    expect(money(0.1 + 0.2, 'USD')).toBe('$0.30');
  });

  it('writes compact money for chart axes, and keeps compact and full formats apart', () => {
    expect(money(1_234_567, 'USD', true)).toBe('$1.2M');
    expect(money(1_500, 'USD', true)).toBe('$1.5K');
    expect(money(1_234_567, 'USD')).toBe('$1,234,567.00');
  });

  it('groups counts by thousands', () => {
    expect(number(0)).toBe('0');
    expect(number(1_234_567)).toBe('1,234,567');
  });

  it('writes percentages with one decimal unless told', () => {
    expect(percent(12.345)).toBe('12.3%');
    expect(percent(12.5, 0)).toBe('13%');
    expect(percent(0)).toBe('0.0%');
    expect(percent(150, 0)).toBe('150%');
  });

  it('names months and days of buckets, and leaves anything else as it is', () => {
    expect(bucketLabel('202410')).toBe('Oct 2024');
    expect(bucketLabel('202401', true)).toBe('January 2024');
    expect(bucketLabel('2024-10-05')).toBe('Oct 5');
    expect(bucketLabel('2024-12-31')).toBe('Dec 31');
    expect(bucketLabel('Q3 2024')).toBe('Q3 2024');
  });

  it('writes a date and time, and a dash for none', () => {
    expect(dateTime(undefined)).toBe('—');
    expect(dateTime('')).toBe('—');
    expect(dateTime('2024-10-05T12:00:00Z')).toMatch(/^\d{1,2} Oct 2024, \d{2}:\d{2}$/);
  });

  it('finds the period (YYYYMM, UTC) a number of months before a date, across years', () => {
    const date = new Date(Date.UTC(2024, 0, 31, 23, 30));
    expect(periodOf(date)).toBe('202401');
    expect(periodOf(date, 1)).toBe('202312');
    expect(periodOf(date, 13)).toBe('202212');
    expect(periodOf(date, -2)).toBe('202403');
    expect(previousPeriod('202401')).toBe('202312');
    expect(previousPeriod('202403')).toBe('202402');
  });

  it('labels a series by its key’s values, `(none)` for a missing one', () => {
    expect(seriesLabel({})).toBe('Total');
    expect(seriesLabel({ providerName: 'aws' })).toBe('aws');
    expect(seriesLabel({ providerName: 'aws', region: null })).toBe('aws · (none)');
    expect(seriesLabel({ providerName: 'aws' }, true)).toBe('Other');
  });

  it('writes sizes in binary units', () => {
    expect(bytes(0)).toBe('0 B');
    expect(bytes(1023)).toBe('1,023 B');
    expect(bytes(1536)).toBe('1.5 KB');
    expect(bytes(10 * 1024 * 1024)).toBe('10 MB');
    expect(bytes(3.25 * 1024 ** 3)).toBe('3.3 GB');
    expect(bytes(5 * 1024 ** 5)).toBe('5120 TB');
  });
});
