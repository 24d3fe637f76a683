import { addNumbers } from './summation';

describe('$sum of doubles', () => {
  it('adds with a compensated sum, as mongod does, not one rounding per addition', () => {
    expect(addNumbers(Array(10).fill(0.1))).toBe(1);
    expect(addNumbers([1e16, 1, -1e16])).toBe(1);
    expect(addNumbers([1, Infinity, -3])).toBe(Infinity);
  });
});
