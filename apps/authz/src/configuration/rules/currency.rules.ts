import type { FieldProblem } from '@lib/core';
import { isPlainObject, problemAt } from './field-problem';

const ISO_4217 = /^[A-Z]{3}$/;
const MAX_CURRENCIES = 300;
const NOT_A_CODE = 'must be an ISO 4217 currency code (3 upper-case letters)';

export const isCurrencyCode = (value: unknown): value is string => typeof value === 'string' && ISO_4217.test(value);

/** `INSTANCE_CURRENCIES`: a non-empty list of distinct ISO 4217 codes. */
export function instanceCurrenciesProblems(value: unknown): FieldProblem[] {
  if (!Array.isArray(value) || value.length === 0) return [problemAt(undefined, 'must be a non-empty array of ISO 4217 currency codes')];
  if (value.length > MAX_CURRENCIES) return [problemAt(undefined, `must hold at most ${MAX_CURRENCIES} currencies`)];
  const seen = new Set<unknown>();
  const problems: FieldProblem[] = [];
  value.forEach((code: unknown, index) => {
    if (!isCurrencyCode(code)) problems.push(problemAt(index, NOT_A_CODE));
    else if (seen.has(code)) problems.push(problemAt(index, `"${code}" is listed twice`));
    seen.add(code);
  });
  return problems;
}

/** `DEFAULT_CURRENCY`: one ISO 4217 code (membership in INSTANCE_CURRENCIES is checked against the stored list). */
export function defaultCurrencyProblems(value: unknown): FieldProblem[] {
  return isCurrencyCode(value) ? [] : [problemAt(undefined, NOT_A_CODE)];
}

/** `CURRENCY_EXCHANGE_RATES`: ISO 4217 code → units of DEFAULT_CURRENCY one unit of that currency is worth (> 0). */
export function exchangeRatesProblems(value: unknown): FieldProblem[] {
  if (!isPlainObject(value)) return [problemAt(undefined, 'must be an object mapping ISO 4217 codes to positive numbers')];
  const entries = Object.entries(value);
  if (entries.length > MAX_CURRENCIES) return [problemAt(undefined, `must hold at most ${MAX_CURRENCIES} rates`)];
  return entries.flatMap(([code, rate]) => {
    if (!isCurrencyCode(code)) return [problemAt(code, 'is not an ISO 4217 currency code (3 upper-case letters)')];
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) return [problemAt(code, 'must be a positive number')];
    return [];
  });
}

/** The stored default currency must stay one of the instance currencies, whichever of the two changes. */
export function defaultCurrencyConsistencyProblems(defaultCurrency: unknown, instanceCurrencies: unknown): FieldProblem[] {
  if (typeof defaultCurrency !== 'string' || !Array.isArray(instanceCurrencies) || instanceCurrencies.includes(defaultCurrency)) return [];
  return [
    problemAt(undefined, `DEFAULT_CURRENCY (${defaultCurrency}) must be one of INSTANCE_CURRENCIES (${instanceCurrencies.join(', ')})`),
  ];
}
