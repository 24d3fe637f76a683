import { Decimal128, Long } from 'bson';
import { addNumbers, averageNumbers } from './summation';

describe('$sum of doubles', () => {
  it('adds with a compensated sum, as mongod does, not one rounding per addition', () => {
    expect(addNumbers(Array(10).fill(0.1))).toBe(1);
    expect(addNumbers([1e16, 1, -1e16])).toBe(1);
    expect(addNumbers([1, Infinity, -3])).toBe(Infinity);
  });

  it('keeps integers exact past 2^53 when a Long is among them, in any order', () => {
    const big = 2n ** 53n - 1n;
    const values = [Number(big), Number(big), Long.fromBigInt(2n ** 60n), 3, Number(big)];
    const expected = 3n * big + 2n ** 60n + 3n;
    for (const order of [values, [...values].reverse()]) {
      const sum = addNumbers(order);
      expect(sum).toBeInstanceOf(Long);
      expect((sum as Long).toBigInt()).toBe(expected);
    }
    // no Long: a double, as mongod gives
    expect(addNumbers([Number(big), Number(big), 2])).toBe(Number(2n * big + 2n));
    // a fraction among Longs: a double
    expect(typeof addNumbers([Long.fromNumber(5), 0.5])).toBe('number');
  });

  it('widens to Decimal128 and averages numeric values only', () => {
    expect((addNumbers([Decimal128.fromString('0.1'), 2, Long.fromNumber(1)]) as Decimal128).toString()).toBe('3.1');
    expect(averageNumbers([1, 2, 'x', null, 6])).toBe(3);
    expect(averageNumbers(['x'])).toBeNull();
  });
});
