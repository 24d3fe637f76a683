import type { PipelineStage } from 'mongoose';
import { CostRollup, CostRollupMonthly, ROLLUP_AMOUNTS, ROLLUP_DIMENSIONS } from './schemas/cost-rollup.schema';

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

export type RollupLevel = 'day' | 'month';

/** The rollup level that answers a query `rollupCanAnswer` accepts: the monthly one unless it reads the day. */
export function rollupLevelFor(filter: Record<string, unknown>, readFields: readonly string[]): RollupLevel {
  return filterFields(filter).has('chargePeriodStart') || readFields.includes('chargePeriodStart') ? 'day' : 'month';
}

/**
 * The aggregation of one upload's line items into daily rollup rows (one per UTC day and
 * dimensions). It groups by the exact `chargePeriodStart` first and by its day only then: the
 * first `$group` reads every line item but only plain fields, the day is formatted once per
 * distinct start (a few per day), not once per line item.
 */
export function rollupPipeline(uploadRefId: string): PipelineStage[] {
  // no $ifNull: a missing field stays missing (and a null stays null) in the rollup row, so that
  // queries treat the row exactly as they treat its line items
  const byStart: Record<string, unknown> = Object.fromEntries(ROLLUP_DIMENSIONS.map((name) => [name, `$${name}`]));
  byStart.chargePeriodStart = '$chargePeriodStart';
  const byDay: Record<string, unknown> = Object.fromEntries(ROLLUP_DIMENSIONS.map((name) => [name, `$_id.${name}`]));
  byDay.day = { $dateToString: { format: '%Y-%m-%d', date: '$_id.chargePeriodStart' } };
  const sums = Object.fromEntries(ROLLUP_AMOUNTS.map((name) => [name, { $sum: `$${name}` }]));
  return [
    { $match: { uploadRefId } },
    { $group: { _id: byStart, ...sums, lineItems: { $sum: 1 } } },
    { $group: { _id: byDay, ...sums, lineItems: { $sum: '$lineItems' } } },
  ] as PipelineStage[];
}

export type RollupGroup = { _id: Record<string, string | null> } & Record<string, number>;

/** A `rollupPipeline` output row as the rollup document to store (dimensions the line items lack are left out). */
export function rollupRow(uploadRefId: string, group: RollupGroup): Omit<CostRollup, 'tenantId'> {
  const { day, ...dimensions } = group._id;
  return {
    ...monthlyRollupRow(uploadRefId, { ...group, _id: dimensions } as RollupGroup),
    chargePeriodStart: day ? new Date(`${day}T00:00:00Z`) : null,
  } as Omit<CostRollup, 'tenantId'>;
}

/** A monthly group (the daily ones of `monthlyGroups`) as the monthly rollup document to store. */
export function monthlyRollupRow(uploadRefId: string, group: RollupGroup): Omit<CostRollupMonthly, 'tenantId'> {
  const row: Record<string, unknown> = { uploadRefId, lineItems: group.lineItems };
  for (const name of ROLLUP_DIMENSIONS) if (name in group._id) row[name] = group._id[name];
  for (const name of ROLLUP_AMOUNTS) row[name] = group[name] ?? 0;
  return row as Omit<CostRollupMonthly, 'tenantId'>;
}

/**
 * The key of a group's dimensions, telling a missing dimension (`a`) from a null one (`n`); a text
 * is written as its length and itself, so no two lists of dimensions give one key.
 */
export const dimensionsKey = (id: Record<string, string | null>): string => {
  let key = '';
  for (const name of ROLLUP_DIMENSIONS) {
    if (!(name in id)) key += 'a';
    else {
      const value = id[name];
      if (value === null || value === undefined) key += 'n';
      else if (typeof value === 'string') key += `${value.length}:${value}`;
      else {
        const text = JSON.stringify(value) ?? String(value);
        key += `j${text.length}:${text}`;
      }
    }
  }
  return key;
};

/**
 * Rollup groups summed by key: the one way line items (a load) and daily groups (the monthly
 * level) are added up in memory. Only numbers are added; a missing amount adds nothing.
 */
export class RollupGroupSums {
  private readonly groups = new Map<string, RollupGroup>();

  add(key: string, id: Record<string, string | null>, lineItems: number, amounts: Record<string, unknown>): void {
    let group = this.groups.get(key);
    if (!group) {
      group = { _id: id, lineItems: 0 } as unknown as RollupGroup;
      for (const name of ROLLUP_AMOUNTS) group[name] = 0;
      this.groups.set(key, group);
    }
    group.lineItems += lineItems;
    for (const name of ROLLUP_AMOUNTS) if (typeof amounts[name] === 'number') group[name] += amounts[name];
  }

  rows(): RollupGroup[] {
    return [...this.groups.values()];
  }
}

/** The daily groups summed over their days: the monthly level (`period` is a dimension of both). */
export function monthlyGroups(daily: readonly RollupGroup[]): RollupGroup[] {
  const months = new RollupGroupSums();
  for (const day of daily) {
    const { day: _day, ...dimensions } = day._id;
    months.add(dimensionsKey(dimensions), dimensions, day.lineItems, day);
  }
  return months.rows();
}
