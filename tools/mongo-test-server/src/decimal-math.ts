import { Decimal128, Long } from 'bson';

/** An exact decimal: coefficient × 10^exponent. */
interface ExactDecimal {
  coefficient: bigint;
  exponent: number;
}

const DECIMAL_PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function parseDecimal(text: string): ExactDecimal | undefined {
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  const digits = `${whole}${fraction}` || '0';
  const coefficient = BigInt(digits) * (sign === '-' ? -1n : 1n);
  return { coefficient, exponent: Number(exponentText) - fraction.length };
}

function toExact(value: number | Long | Decimal128): ExactDecimal | undefined {
  if (value instanceof Long) return { coefficient: value.toBigInt(), exponent: 0 };
  return parseDecimal(value.toString());
}

function align(a: ExactDecimal, b: ExactDecimal): [bigint, bigint, number] {
  const exponent = Math.min(a.exponent, b.exponent);
  return [a.coefficient * 10n ** BigInt(a.exponent - exponent), b.coefficient * 10n ** BigInt(b.exponent - exponent), exponent];
}

function formatDecimal({ coefficient, exponent }: ExactDecimal): Decimal128 {
  const negative = coefficient < 0n;
  let digits = (negative ? -coefficient : coefficient).toString();
  let text: string;
  if (exponent >= 0) {
    text = digits + '0'.repeat(exponent);
  } else {
    digits = digits.padStart(-exponent + 1, '0');
    text = `${digits.slice(0, exponent)}.${digits.slice(exponent)}`;
  }
  return Decimal128.fromString(`${negative ? '-' : ''}${text}`);
}

const isDecimalLike = (value: unknown): value is Decimal128 | Long => value instanceof Decimal128 || value instanceof Long;

export function hasWideNumber(values: unknown[]): boolean {
  return values.some(isDecimalLike);
}

/**
 * Adds numbers the way mongod widens types: any Decimal128 makes the result Decimal128
 * (exact), otherwise any Long with only integers makes it a Long. Non-numbers are skipped.
 */
export function addNumbers(values: unknown[]): number | Long | Decimal128 {
  const numeric = values.filter((value): value is number | Long | Decimal128 => typeof value === 'number' || isDecimalLike(value));
  if (numeric.some((value) => value instanceof Decimal128)) {
    let total: ExactDecimal = { coefficient: 0n, exponent: 0 };
    for (const value of numeric) {
      const exact = toExact(value);
      if (!exact) return Decimal128.fromString('NaN');
      const [a, b, exponent] = align(total, exact);
      total = { coefficient: a + b, exponent };
    }
    return formatDecimal(total);
  }
  if (numeric.some((value) => value instanceof Long) && numeric.every((value) => value instanceof Long || Number.isInteger(value))) {
    return Long.fromBigInt(
      numeric.reduce<bigint>((sum, value) => sum + (value instanceof Long ? value.toBigInt() : BigInt(value as number)), 0n),
    );
  }
  return sumDoubles(numeric.map((value) => (value instanceof Long ? value.toNumber() : Number(value))));
}

/**
 * Doubles added as mongod's `$sum` does, with a compensated (double-double) sum rather than one
 * rounding per addition: at a million amounts the naive sum drifts by ~1e-4, this one by ~1e-8.
 */
function sumDoubles(values: number[]): number {
  let sum = 0;
  let compensation = 0;
  for (const value of values) {
    const next = sum + value;
    if (!Number.isFinite(next)) return values.reduce((total, each) => total + each, 0);
    compensation += Math.abs(sum) >= Math.abs(value) ? sum - next + value : value - next + sum;
    sum = next;
  }
  return sum + compensation;
}

/** Average with the same widening; a Decimal128 average keeps 34 significant digits. */
export function averageNumbers(values: unknown[]): number | Decimal128 | null {
  const numeric = values.filter((value) => typeof value === 'number' || isDecimalLike(value));
  if (numeric.length === 0) return null;
  const total = addNumbers(numeric);
  if (!(total instanceof Decimal128)) return Number(total instanceof Long ? total.toNumber() : total) / numeric.length;
  const exact = toExact(total);
  if (!exact) return total;
  const scale = 34n;
  const quotient = (exact.coefficient * 10n ** scale) / BigInt(numeric.length);
  let result: ExactDecimal = { coefficient: quotient, exponent: exact.exponent - Number(scale) };
  while (result.coefficient !== 0n && result.coefficient % 10n === 0n && result.exponent < 0) {
    result = { coefficient: result.coefficient / 10n, exponent: result.exponent + 1 };
  }
  const digits = (result.coefficient < 0n ? -result.coefficient : result.coefficient).toString().length;
  if (digits > 34) {
    const drop = BigInt(digits - 34);
    result = { coefficient: result.coefficient / 10n ** drop, exponent: result.exponent + Number(drop) };
  }
  return formatDecimal(result);
}
