import { periodsBetween } from './budget-periods';

describe('periodsBetween', () => {
  it('lists the months inclusively across a year end', () => {
    expect(periodsBetween('202411', '202502')).toEqual(['202411', '202412', '202501', '202502']);
    expect(periodsBetween('202405', '202405')).toEqual(['202405']);
    expect(periodsBetween('202406', '202405')).toEqual([]);
  });
});
