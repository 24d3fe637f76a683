import { Decimal128, Long } from 'bson';
import { addExact, divideExact, exactOf, toDecimal128, ZERO, type ExactDecimal } from './decimal-math';

/**
 * mongod's DoubleDoubleSummation: a sum kept as an unevaluated pair (rounded sum + the part
 * rounding lost), so long series of doubles add up as if computed with ~107 bits. `$sum` and
 * `$avg` of doubles therefore give mongod's results, not those of a naive left-to-right sum.
 */
export class DoubleDouble {
  private sum = 0;
  private addend = 0;
  /** Plain sum, answered when the compensated one becomes NaN (infinities). */
  private special = 0;

  addDouble(value: number): void {
    this.special += value;
    // Fast2Sum of value and addend (the addend is the smaller).
    const x = value + this.addend;
    this.addend = this.addend - (x - value);
    // 2Sum of sum and x (x may be the larger).
    const a = this.sum;
    const s = a + x;
    const aPrime = s - x;
    const bPrime = s - aPrime;
    this.sum = s;
    this.addend += a - aPrime + (x - bPrime);
  }

  /** A 64-bit integer split in two doubles, each exact, so the sum stays exact. */
  addLong(value: bigint): void {
    const high = (value / 4294967296n) * 4294967296n;
    this.addDouble(Number(value - high));
    this.addDouble(Number(high));
  }

  /** The double nearest the pair (mongod keeps its pair normalized, so its sum is this). */
  getDouble(): number {
    if (Number.isNaN(this.sum)) return this.special;
    return Number.isFinite(this.sum) ? this.sum + this.addend : this.sum;
  }

  /** The sum as an exact decimal (Decimal128 totals add it). */
  getExact(): ExactDecimal | undefined {
    if (!Number.isFinite(this.sum)) return undefined;
    const sum = exactOf(this.sum);
    const addend = exactOf(this.addend);
    return sum && addend ? addExact(sum, addend) : undefined;
  }
}

/**
 * A `$sum` in progress, widening types as mongod does: any Decimal128 makes the result a
 * Decimal128, otherwise Long values with only integers give a Long, otherwise a double.
 * Non-numbers are skipped. One object per sum (a `$group` keeps one per group and accumulator):
 * the integer total is a number while it is a safe integer, a bigint past that.
 */
export class SumState extends DoubleDouble {
  private integer: number | bigint = 0;
  private integral = true;
  private sawLong = false;
  private decimal: ExactDecimal | null = null;
  private decimalNaN = false;
  count = 0;

  add(value: unknown): void {
    if (typeof value === 'number') {
      this.count++;
      this.addDouble(value);
      if (this.integral && Number.isSafeInteger(value)) this.addInteger(value);
      else this.integral = false;
    } else if (value instanceof Long) {
      this.count++;
      const big = value.toBigInt();
      this.sawLong = true;
      this.addLong(big);
      this.integer = BigInt(this.integer) + big;
    } else if (value instanceof Decimal128) {
      this.count++;
      const exact = exactOf(value);
      if (!exact) this.decimalNaN = true;
      this.decimal = exact ? addExact(this.decimal ?? ZERO, exact) : (this.decimal ?? ZERO);
    }
  }

  private addInteger(value: number): void {
    if (typeof this.integer === 'number') {
      const next = this.integer + value;
      if (Number.isSafeInteger(next)) {
        this.integer = next;
        return;
      }
    }
    this.integer = BigInt(this.integer) + BigInt(value);
  }

  result(): number | Long | Decimal128 {
    if (this.decimal !== null) {
      const rest = this.getExact();
      if (this.decimalNaN || !rest) return Decimal128.fromString('NaN');
      return toDecimal128(addExact(this.decimal, rest));
    }
    if (this.sawLong && this.integral) return Long.fromBigInt(BigInt(this.integer));
    return this.getDouble();
  }

  /** `$avg`: the sum divided by the count of numeric values, null without any. */
  average(): number | Decimal128 | null {
    if (this.count === 0) return null;
    if (this.decimal !== null) {
      const rest = this.getExact();
      if (this.decimalNaN || !rest) return Decimal128.fromString('NaN');
      return divideExact(addExact(this.decimal, rest), this.count);
    }
    return this.getDouble() / this.count;
  }
}

/** `$sum` of a list of values (mingo's accumulators and `$inc` use it too). */
export function addNumbers(values: unknown[]): number | Long | Decimal128 {
  const state = new SumState();
  for (const value of values) state.add(value);
  return state.result();
}

/** `$avg` of a list of values; null when none is numeric. */
export function averageNumbers(values: unknown[]): number | Decimal128 | null {
  const state = new SumState();
  for (const value of values) state.add(value);
  return state.average();
}
