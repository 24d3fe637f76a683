import { Decimal128, Long } from 'bson';

/** An exact decimal: coefficient × 10^exponent. */
export interface ExactDecimal {
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

/** The exact value of a number, Long or Decimal128 (a double by its shortest decimal form). */
export function exactOf(value: number | Long | Decimal128): ExactDecimal | undefined {
  return toExact(value);
}

export const ZERO: ExactDecimal = { coefficient: 0n, exponent: 0 };

export function addExact(a: ExactDecimal, b: ExactDecimal): ExactDecimal {
  const [x, y, exponent] = align(a, b);
  return { coefficient: x + y, exponent };
}

export function toDecimal128(value: ExactDecimal): Decimal128 {
  return formatDecimal(value);
}

/** `total / count` as a Decimal128 keeping 34 significant digits. */
export function divideExact(total: ExactDecimal, count: number): Decimal128 {
  const scale = 34n;
  const quotient = (total.coefficient * 10n ** scale) / BigInt(count);
  let result: ExactDecimal = { coefficient: quotient, exponent: total.exponent - Number(scale) };
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
