import { csvRecord } from '@lib/csv';
import type { CostsAnswer } from './costs-aggregation';

export const csvFileName = (answer: Pick<CostsAnswer, 'from' | 'to'>) => `costs-${answer.from}-${answer.to}.csv`;

/**
 * The long CSV form: `bucket,<groupings>,amount,currency`, one line per bucket and series with a
 * non-zero amount or line items, buckets in order, series in the answer's order. `other` rows hold
 * `(other)` in their grouping columns (their billing currency stays, when amounts are split by it).
 */
export function* costsCsvLines(answer: CostsAnswer): Generator<string> {
  yield csvRecord(['bucket', ...answer.groupBy, 'amount', 'currency'], 'spreadsheet');
  for (const [index, bucket] of answer.buckets.entries()) {
    for (const series of answer.series) {
      if (series.values[index] === 0 && series.counts[index] === 0) continue;
      const groupings = answer.groupBy.map((name) =>
        series.other && !(name === 'billingCurrency' && answer.currency === null) ? '(other)' : (series.key[name] ?? ''),
      );
      const currency = answer.currency ?? series.key.billingCurrency ?? '';
      // amounts are numbers, written as they are (a negative amount stays a number)
      yield csvRecord([bucket, ...groupings, series.values[index], currency], 'spreadsheet');
    }
  }
}
