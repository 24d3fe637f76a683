import { daysBefore, periodMonthsBefore } from './retention';

describe('retention', () => {
  it('counts months back across years', () => {
    expect(periodMonthsBefore(new Date('2026-11-21T00:00:00Z'), 24)).toBe('202411');
    expect(periodMonthsBefore(new Date('2026-01-31T23:59:59Z'), 1)).toBe('202512');
    expect(periodMonthsBefore(new Date('2026-03-01T00:00:00Z'), 0)).toBe('202603');
    expect(periodMonthsBefore(new Date('2026-03-01T00:00:00Z'), 15)).toBe('202412');
  });

  it('counts days back', () => {
    expect(daysBefore(new Date('2026-11-21T00:00:00Z'), 30).toISOString()).toBe('2026-10-22T00:00:00.000Z');
  });
});
