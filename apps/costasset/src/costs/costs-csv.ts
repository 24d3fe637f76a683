import type { CostsAnswer } from './costs-aggregation';

/** Text a spreadsheet would run as a formula (OWASP's list): such a cell is prefixed with `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One text cell: formula-neutralized, then quoted as RFC 4180 asks when it holds `"`, `,` or a line break. */
export function csvTextCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Amounts are numbers, written as they are (a negative amount stays a number). */
const amountCell = (amount: number) => String(amount);

export const csvFileName = (answer: Pick<CostsAnswer, 'from' | 'to'>) => `costs-${answer.from}-${answer.to}.csv`;

/**
 * The long CSV form: `bucket,<groupings>,amount,currency`, one line per bucket and series with a
 * non-zero amount or line items, buckets in order, series in the answer's order. `other` rows hold
 * `(other)` in their grouping columns (their billing currency stays, when amounts are split by it).
 */
export function* costsCsvLines(answer: CostsAnswer): Generator<string> {
  yield `${['bucket', ...answer.groupBy, 'amount', 'currency'].map(csvTextCell).join(',')}\r\n`;
  for (const [index, bucket] of answer.buckets.entries()) {
    for (const series of answer.series) {
      if (series.values[index] === 0 && series.counts[index] === 0) continue;
      const groupings = answer.groupBy.map((name) => (series.other && !(name === 'billingCurrency' && answer.currency === null) ? '(other)' : (series.key[name] ?? '')));
      const currency = answer.currency ?? series.key.billingCurrency ?? '';
      yield `${[bucket, ...groupings].map(csvTextCell).join(',')},${amountCell(series.values[index])},${csvTextCell(currency)}\r\n`;
    }
  }
}
