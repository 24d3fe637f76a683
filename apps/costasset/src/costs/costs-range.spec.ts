import { ProblemException } from '@lib/core';
import { bucketExpression, periodsBefore, rangeFilter, resolveRange } from './costs-range';

const codeOf = (work: () => unknown) => {
  try {
    work();
    return 'none';
  } catch (error) {
    return (error as ProblemException).code;
  }
};

describe('cost explorer ranges', () => {
  it('defaults to the 12 months ending with the given period', () => {
    const range = resolveRange({}, '202403');
    expect(range).toMatchObject({ form: 'period', from: '202304', to: '202403', granularity: 'month' });
    expect(range.buckets).toHaveLength(12);
    expect(periodsBefore('202401', 1)).toBe('202401');
  });

  it('lists every period or day of the range, empty ones included', () => {
    expect(resolveRange({ from: '202311', to: '202402' }, 'x').buckets).toEqual(['202311', '202312', '202401', '202402']);
    expect(resolveRange({ from: '2024-02-27', to: '2024-03-02', granularity: 'day' }, 'x').buckets).toEqual([
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
      '2024-03-02',
    ]);
    expect(resolveRange({ from: '202402', to: '202402', granularity: 'day' }, 'x').buckets).toHaveLength(29);
    expect(resolveRange({ from: '2024-01-30', to: '2024-03-01' }, 'x').buckets).toEqual(['202401', '202402', '202403']);
  });

  it('refuses mixed forms, reversed and too long ranges, half ranges and days that do not exist', () => {
    expect(codeOf(() => resolveRange({ from: '202401', to: '2024-02-01' }, 'x'))).toBe('COSTS_RANGE_INVALID');
    expect(codeOf(() => resolveRange({ from: '202402', to: '202401' }, 'x'))).toBe('COSTS_RANGE_INVALID');
    expect(codeOf(() => resolveRange({ from: '2024-02-02', to: '2024-02-01' }, 'x'))).toBe('COSTS_RANGE_INVALID');
    expect(codeOf(() => resolveRange({ from: '201501', to: '202412' }, 'x'))).toBe('none');
    expect(codeOf(() => resolveRange({ from: '201501', to: '202501' }, 'x'))).toBe('COSTS_RANGE_INVALID');
    expect(codeOf(() => resolveRange({ from: '2023-01-01', to: '2024-12-31' }, 'x'))).toBe('none');
    expect(codeOf(() => resolveRange({ from: '2023-01-01', to: '2025-01-01' }, 'x'))).toBe('COSTS_RANGE_INVALID');
    expect(codeOf(() => resolveRange({ from: '202301', to: '202412', granularity: 'day' }, 'x'))).toBe('none');
    expect(codeOf(() => resolveRange({ from: '202301', to: '202501', granularity: 'day' }, 'x'))).toBe('COSTS_RANGE_INVALID');
    expect(codeOf(() => resolveRange({ from: '202401' }, 'x'))).toBe('COSTS_RANGE_INVALID');
    expect(codeOf(() => resolveRange({ from: '2023-02-29', to: '2023-03-01' }, 'x'))).toBe('VALIDATION_FAILED');
  });

  it('selects by period or by UTC charge day, and buckets accordingly', () => {
    const byPeriod = resolveRange({ from: '202401', to: '202402' }, 'x');
    expect(rangeFilter(byPeriod)).toEqual({ period: { $gte: '202401', $lte: '202402' } });
    expect(bucketExpression(byPeriod)).toBe('$period');
    const byDay = resolveRange({ from: '2024-01-31', to: '2024-02-01', granularity: 'day' }, 'x');
    expect(rangeFilter(byDay)).toEqual({
      chargePeriodStart: { $gte: new Date('2024-01-31T00:00:00Z'), $lt: new Date('2024-02-02T00:00:00Z') },
    });
    expect(bucketExpression(byDay)).toEqual({ $dateToString: { format: '%Y-%m-%d', date: '$chargePeriodStart' } });
  });
});
