import type { PipelineStage } from 'mongoose';
import { CostRollup, ROLLUP_AMOUNTS, ROLLUP_DIMENSIONS } from './schemas/cost-rollup.schema';

/** Every line-item field a query may touch and still be answered from rollups. */
export const ROLLED_UP_FIELDS: ReadonlySet<string> = new Set<string>([...ROLLUP_DIMENSIONS, ...ROLLUP_AMOUNTS, 'chargePeriodStart']);

/**
 * The fields a MongoDB filter reads: every key that is not an operator, at any depth of
 * `$and`/`$or`/`$nor`/`$not`. A field condition's operand is not descended into, so
 * `{ tags: { $elemMatch: … } }` reads `tags`.
 */
export function filterFields(filter: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(filter)) {
    filter.forEach((entry) => filterFields(entry, into));
  } else if (filter && typeof filter === 'object') {
    for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
      if (key.startsWith('$')) filterFields(value, into);
      else into.add(key);
    }
  }
  return into;
}

/**
 * Whether a filter and the fields a query groups or sums by can be answered from rollups. Amount
 * columns may be summed but not compared: a condition on a cost is a condition on each line item.
 */
export function rollupCanAnswer(filter: Record<string, unknown>, readFields: readonly string[]): boolean {
  const compared = filterFields(filter);
  for (const amount of ROLLUP_AMOUNTS) if (compared.has(amount)) return false;
  return [...compared, ...readFields].every((field) => ROLLED_UP_FIELDS.has(field));
}

/** The `$group` of one upload's line items into rollup rows (one per UTC day and dimensions). */
export function rollupPipeline(uploadRefId: string): PipelineStage[] {
  // no $ifNull: a missing field stays missing (and a null stays null) in the rollup row, so that
  // queries treat the row exactly as they treat its line items
  const id: Record<string, unknown> = Object.fromEntries(ROLLUP_DIMENSIONS.map((name) => [name, `$${name}`]));
  id.day = { $dateToString: { format: '%Y-%m-%d', date: '$chargePeriodStart' } };
  const sums = Object.fromEntries(ROLLUP_AMOUNTS.map((name) => [name, { $sum: `$${name}` }]));
  return [{ $match: { uploadRefId } }, { $group: { _id: id, ...sums, lineItems: { $sum: 1 } } }] as PipelineStage[];
}

export type RollupGroup = { _id: Record<string, string | null> } & Record<string, number>;

/** A `rollupPipeline` output row as the rollup document to store (dimensions the line items lack are left out). */
export function rollupRow(uploadRefId: string, group: RollupGroup): Omit<CostRollup, 'tenantId'> {
  const { day, ...dimensions } = group._id;
  const row: Record<string, unknown> = { uploadRefId, chargePeriodStart: day ? new Date(`${day}T00:00:00Z`) : null, lineItems: group.lineItems };
  for (const name of ROLLUP_DIMENSIONS) if (name in dimensions) row[name] = dimensions[name];
  for (const name of ROLLUP_AMOUNTS) row[name] = group[name] ?? 0;
  return row as Omit<CostRollup, 'tenantId'>;
}
