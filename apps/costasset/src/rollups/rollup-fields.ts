import type { PipelineStage } from 'mongoose';
import { filterFields, tagKeysOf } from '../expressions';
import { AllocationModel } from '../allocation/allocation-model';
import type { RolledUpTag } from '../allocation/allocation-model';
import {
  ALLOCATION_ROW_DIMENSIONS,
  CostRollup,
  CostRollupAllocation,
  CostRollupMonthly,
  ROLLUP_AMOUNTS,
  RESOURCE_DIMENSIONS,
  ROLLUP_DIMENSIONS,
  SUMMARY_DIMENSIONS,
} from './schemas/cost-rollup.schema';

/** Every line-item field a query may touch and still be answered from rollups. */
export const ROLLED_UP_FIELDS: ReadonlySet<string> = new Set<string>([...ROLLUP_DIMENSIONS, ...ROLLUP_AMOUNTS, 'chargePeriodStart']);

export { filterFields, tagKeysOf } from '../expressions';

/** The read of one tag (its group and key) as `readFields` name it: rolled up when the key is activated. */
export const tagRead = (group: string, key: string): string => `tags${JSON.stringify([group, key])}`;
/** The read of one virtual dimension as `readFields` name it. */
export const dimensionRead = (name: string): string => `dimensions.${name}`;

/**
 * Whether a filter and the fields a query groups or sums by can be answered from rollups. Amount
 * columns may be summed but not compared: a condition on a cost is a condition on each line item.
 * Tags are rolled up for the keys the tenant activated (`allocation`), virtual dimensions always
 * (they are computed with the rollups: docs/allocation.md).
 */
export function rollupCanAnswer(
  filter: Record<string, unknown>,
  readFields: readonly string[],
  allocation: AllocationModel = AllocationModel.EMPTY,
): boolean {
  const compared = filterFields(filter);
  for (const amount of ROLLUP_AMOUNTS) if (compared.has(amount)) return false;
  if (compared.has('tags')) {
    const keys = tagKeysOf(filter);
    if (!keys || !keys.every(({ group, key }) => allocation.tagKeyActive(group, key))) return false;
    compared.delete('tags');
  }
  return [...compared, ...readFields].every((field) => {
    if (ROLLED_UP_FIELDS.has(field)) return true;
    if (field.startsWith('dimensions.')) return allocation.hasDimension(field.slice('dimensions.'.length));
    if (field.startsWith('tags[')) {
      const [group, key] = JSON.parse(field.slice('tags'.length)) as [string, string];
      return allocation.tagKeyActive(group, key);
    }
    return false;
  });
}

export type RollupLevel = 'day' | 'month';

/** A `$group`'s sum of every rolled-up amount. */
const amountSums = (): Record<string, { $sum: string }> => Object.fromEntries(ROLLUP_AMOUNTS.map((name) => [name, { $sum: `$${name}` }]));

/** The rollup level that answers a query `rollupCanAnswer` accepts: the monthly one unless it reads the day. */
export function rollupLevelFor(filter: Record<string, unknown>, readFields: readonly string[]): RollupLevel {
  return filterFields(filter).has('chargePeriodStart') || readFields.includes('chargePeriodStart') ? 'day' : 'month';
}

/**
 * The aggregation of one upload's line items into daily rollup rows (one per UTC day and
 * dimensions). It groups by the exact `chargePeriodStart` first and by its day only then: the
 * first `$group` reads every line item but only plain fields, the day is formatted once per
 * distinct start (a few per day), not once per line item. When the tenant has allocation settings
 * (docs/allocation.md), the groups also keep the line items' tags as they are; `allocatedGroups`
 * then computes each group's allocation fields in memory, once per group rather than once per line
 * item (rules evaluated by the database cost ~9× the whole aggregation on the embedded store).
 */
export function rollupPipeline(uploadRefId: string, allocation: AllocationModel = AllocationModel.EMPTY): PipelineStage[] {
  return rollupGroupsPipeline({ uploadRefId }, allocation);
}

/**
 * `rollupPipeline` over any selection of line items. With allocation settings, the groups keep the
 * tags their classification reads (`AllocationModel.groupingTags`), for `allocatedGroups`. By
 * `month`: one group per month and dimensions, no day (what a query reading no day needs).
 */
export function rollupGroupsPipeline(
  match: Record<string, unknown>,
  allocation: AllocationModel,
  level: RollupLevel = 'day',
): PipelineStage[] {
  // no $ifNull: a missing field stays missing (and a null stays null) in the rollup row, so that
  // queries treat the row exactly as they treat its line items
  const byStart: Record<string, unknown> = Object.fromEntries(ROLLUP_DIMENSIONS.map((name) => [name, `$${name}`]));
  byStart.chargePeriodStart = '$chargePeriodStart';
  const byDay: Record<string, unknown> = Object.fromEntries(ROLLUP_DIMENSIONS.map((name) => [name, `$_id.${name}`]));
  byDay.day = { $dateToString: { format: '%Y-%m-%d', date: '$_id.chargePeriodStart' } };
  if (!allocation.isEmpty) {
    byStart.tags = allocation.groupingTags();
    byDay.tags = '$_id.tags';
  }
  const sums = amountSums();
  if (level === 'month') {
    const { chargePeriodStart: _start, ...byMonth } = byStart;
    return [{ $match: match }, { $group: { _id: byMonth, ...sums, lineItems: { $sum: 1 } } }] as PipelineStage[];
  }
  return [
    { $match: match },
    { $group: { _id: byStart, ...sums, lineItems: { $sum: 1 } } },
    { $group: { _id: byDay, ...sums, lineItems: { $sum: '$lineItems' } } },
  ] as PipelineStage[];
}

/**
 * The aggregation of line items (one upload's, or one part of it) into monthly rows by resource
 * (RESOURCE_DIMENSIONS and the line items' own tags; a missing field stays missing).
 */
export function resourcePipeline(match: { uploadRefId: string; uploadPart?: number }): PipelineStage[] {
  const id: Record<string, unknown> = Object.fromEntries(RESOURCE_DIMENSIONS.map((name) => [name, `$${name}`]));
  id.tags = '$tags';
  const sums = amountSums();
  return [{ $match: match }, { $group: { _id: id, ...sums, lineItems: { $sum: 1 } } }] as PipelineStage[];
}

/**
 * `resourcePipeline` with its groups made into the rows `monthlyRollupRow` makes of them (and a
 * part's index, for one part's rows), by the database: what `aggregateInto` writes as they come.
 */
export function resourceRowsPipeline(match: { uploadRefId: string; uploadPart?: number }): PipelineStage[] {
  const row: Record<string, unknown> = { _id: 0, uploadRefId: { $literal: match.uploadRefId }, lineItems: '$lineItems' };
  // a field missing from the group stays missing; a null one stays null
  for (const name of RESOURCE_DIMENSIONS) row[name] = `$_id.${name}`;
  // tags only when the line items had some (an array, empty or not): null or missing gives none
  row.tags = { $ifNull: ['$_id.tags', '$$REMOVE'] };
  for (const name of ROLLUP_AMOUNTS) row[name] = `$${name}`;
  if (match.uploadPart !== undefined) row.uploadPart = { $literal: match.uploadPart };
  return [...resourcePipeline(match), { $project: row }] as PipelineStage[];
}

/** Fields a monthly query may read and be answered by the rows by resource (`resourceId` and the monthly dimensions). */
const RESOURCE_FIELDS: ReadonlySet<string> = new Set<string>([...RESOURCE_DIMENSIONS, ...ROLLUP_AMOUNTS]);

/**
 * Whether the monthly rows by resource answer a query the other levels cannot: it reads resource
 * ids, otherwise only the monthly dimensions (no day, no tag, no dimension), and sums amounts
 * without comparing them.
 */
export function resourceRowsAnswer(filter: Record<string, unknown>, readFields: readonly string[]): boolean {
  const compared = filterFields(filter);
  if (ROLLUP_AMOUNTS.some((amount) => compared.has(amount))) return false;
  const read = [...compared, ...readFields];
  return read.includes('resourceId') && read.every((field) => RESOURCE_FIELDS.has(field));
}

/**
 * Groups (daily or monthly) without their allocation fields, summed again: the daily and monthly
 * levels keep no tags or dimensions (their combinations would make them nearly as large as the
 * line items); queries on allocation fields read the allocation rows or the allocated monthly rows.
 */
export function baseGroups(daily: readonly RollupGroup[]): RollupGroup[] {
  if (!daily.some((group) => group._id.tags !== undefined || group._id.dimensions !== undefined)) return [...daily];
  const sums = new RollupGroupSums();
  for (const group of daily) {
    const { tags: _tags, dimensions: _dimensions, ...id } = group._id as RollupGroupId & { day?: string | null };
    sums.add(
      `${dimensionsKey(id as RollupGroupId)}\u0002${(id as { day?: string | null }).day ?? ''}`,
      id as RollupGroupId,
      group.lineItems,
      group,
    );
  }
  return sums.rows();
}

/** The allocation fields rows are kept for: every dimension, and every activated key of one group. */
export function allocationFields(allocation: AllocationModel): string[] {
  return [
    ...allocation.dimensionNames.map((name) => `dimension:${name}`),
    ...allocation.definitions.tagKeys.filter((entry) => entry.group !== null).map((entry) => `tag:${entry.group}:${entry.key}`),
  ];
}

/**
 * The allocation rows (CostRollupAllocation) of an upload's monthly groups, or of its daily groups
 * (the rows then keep their day as `chargePeriodStart`): per allocation field, the groups summed by
 * ALLOCATION_ROW_DIMENSIONS and the field's value.
 */
export function allocationRows(
  uploadRefId: string,
  monthly: readonly RollupGroup[],
  allocation: AllocationModel,
): Omit<CostRollupAllocation, 'tenantId'>[] {
  const rows: Omit<CostRollupAllocation, 'tenantId'>[] = [];
  // each group's row dimensions (and day) as a key, once for every field
  const rowKeys = monthly.map((entry) => fieldsKey(entry._id, ROW_KEY_FIELDS));
  for (const field of allocationFields(allocation)) {
    const dimension = field.startsWith('dimension:') ? field.slice('dimension:'.length) : undefined;
    const [, group, key] = dimension === undefined ? (/^tag:([^:]+):(.+)$/s.exec(field) ?? []) : [];
    const sums = new Map<string, { id: Record<string, unknown>; lineItems: number; amounts: Record<string, number> }>();
    for (let index = 0; index < monthly.length; index++) {
      const entry = monthly[index];
      const tag = dimension === undefined ? entry._id.tags?.find((one) => one.group === group && one.key === key) : undefined;
      const value = dimension !== undefined ? (entry._id.dimensions?.[dimension] ?? null) : tag ? (tag.value ?? null) : undefined;
      const keyOf = `${rowKeys[index]}\u0001${value === undefined ? 'x' : value === null ? 'n' : `s${value}`}`;
      let sum = sums.get(keyOf);
      if (!sum) {
        const id: Record<string, unknown> = {};
        for (const name of ALLOCATION_ROW_DIMENSIONS) if (name in entry._id) id[name] = entry._id[name];
        if ('day' in entry._id) id.day = entry._id.day;
        if (dimension !== undefined) id.dimensions = { [dimension]: value };
        else id.tags = tag ? [{ group: tag.group, key: tag.key, value: tag.value }] : [];
        sums.set(keyOf, (sum = { id, lineItems: 0, amounts: Object.fromEntries(ROLLUP_AMOUNTS.map((name) => [name, 0])) }));
      }
      sum.lineItems += entry.lineItems;
      for (const name of ROLLUP_AMOUNTS) if (typeof entry[name] === 'number') sum.amounts[name] += entry[name];
    }
    for (const { id, lineItems, amounts } of sums.values()) {
      const { day, ...rest } = id as { day?: string | null };
      const start = day === undefined ? {} : { chargePeriodStart: day ? new Date(`${day}T00:00:00Z`) : null };
      rows.push({ uploadRefId, field, ...rest, ...start, ...amounts, lineItems } as unknown as Omit<CostRollupAllocation, 'tenantId'>);
    }
  }
  return rows;
}

/**
 * The groups of `rollupPipeline` with their allocation fields: each group's raw tags give way to
 * the tags of activated keys and the value of every dimension (`AllocationModel.classify`), and
 * groups that end up alike are summed. Without settings, the groups as they are.
 */
export function allocatedGroups(groups: readonly RollupGroup[], allocation: AllocationModel): RollupGroup[] {
  if (allocation.isEmpty) return [...groups];
  const sums = new RollupGroupSums();
  // classifications are shared by the groups of equal inputs: each one's key is written once
  const fieldKeys = new Map<object, string>();
  for (const group of groups) {
    const fields = allocation.classify(group._id);
    let fieldsPart = fieldKeys.get(fields);
    if (fieldsPart === undefined) fieldKeys.set(fields, (fieldsPart = allocationKey(fields)));
    const day = (group._id as { day?: string | null }).day;
    const key = `${fieldsPart}${fieldsKey(group._id, ROLLUP_DIMENSIONS)}\u0002${day ?? ''}`;
    sums.add(key, () => allocatedId(group._id, fields), group.lineItems, group);
  }
  return sums.rows();
}

/** A group's `_id` with its allocation fields in place of its raw tags. */
function allocatedId(source: RollupGroupId, fields: { tags?: RolledUpTag[]; dimensions?: Record<string, string> }): RollupGroupId {
  const { tags: _tags, day, ...dimensions } = source as RollupGroupId & { day?: string | null };
  const id = { ...dimensions, ...fields } as RollupGroupId;
  return day === undefined ? id : ({ ...id, day: day ?? null } as unknown as RollupGroupId);
}

/** A group's `_id`: the dimensions, and the allocation fields (`tags`, `dimensions`) when the tenant has any. */
export type RollupGroupId = Record<string, string | null> & { tags?: RolledUpTag[]; dimensions?: Record<string, string> };
export type RollupGroup = { _id: RollupGroupId } & Record<string, number>;

/** A `rollupPipeline` output row as the rollup document to store (dimensions the line items lack are left out). */
export function rollupRow(uploadRefId: string, group: RollupGroup): Omit<CostRollup, 'tenantId'> {
  const { day, ...dimensions } = group._id;
  return {
    ...monthlyRollupRow(uploadRefId, { ...group, _id: dimensions } as RollupGroup),
    chargePeriodStart: day ? new Date(`${day}T00:00:00Z`) : null,
  } as Omit<CostRollup, 'tenantId'>;
}

/** A monthly group (the daily ones of `monthlyGroups`, or one by resource) as the monthly rollup document to store. */
export function monthlyRollupRow(uploadRefId: string, group: RollupGroup): Omit<CostRollupMonthly, 'tenantId'> {
  const row: Record<string, unknown> = { uploadRefId, lineItems: group.lineItems };
  for (const name of RESOURCE_DIMENSIONS) if (name in group._id) row[name] = group._id[name];
  if (group._id.tags) row.tags = group._id.tags;
  if (group._id.dimensions) row.dimensions = group._id.dimensions;
  for (const name of ROLLUP_AMOUNTS) row[name] = group[name] ?? 0;
  return row as Omit<CostRollupMonthly, 'tenantId'>;
}

/** The key of a group's dimensions and allocation fields (`fieldsKey` of ROLLUP_DIMENSIONS). */
export const dimensionsKey = (id: RollupGroupId): string => allocationKey(id) + fieldsKey(id, ROLLUP_DIMENSIONS);

/** What an allocation row is keyed by besides its field's value. */
const ROW_KEY_FIELDS = [...ALLOCATION_ROW_DIMENSIONS, 'day'] as const;

/**
 * The values of `names` in a group's `_id` as one key, telling a missing field (`a`) from a null
 * one (`n`); a text is written as its length and itself, so no two lists of values give one key.
 */
function fieldsKey(id: Readonly<Record<string, unknown>>, names: readonly string[]): string {
  let key = '';
  for (const name of names) {
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
}

/** The allocation fields of a group as one string (empty without them); their order is the model's, fixed. */
export function allocationKey(fields: { tags?: unknown; dimensions?: unknown }): string {
  if (fields.tags === undefined && fields.dimensions === undefined) return '';
  return `${JSON.stringify(fields.tags ?? null)}\u0001${JSON.stringify(fields.dimensions ?? null)}\u0001`;
}

/**
 * Rollup groups summed by key: the one way line items (a load) and daily groups (the monthly
 * level) are added up in memory. Only numbers are added; a missing amount adds nothing.
 */
export class RollupGroupSums {
  private readonly groups = new Map<string, RollupGroup>();

  /** Adds to the group of `key`; `id` (or what it returns, called only for a new group) is its `_id`. */
  add(key: string, id: RollupGroupId | (() => RollupGroupId), lineItems: number, amounts: Record<string, unknown>): void {
    let group = this.groups.get(key);
    if (!group) {
      group = { _id: typeof id === 'function' ? id() : id, lineItems: 0 } as unknown as RollupGroup;
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

/** Monthly groups summed by SUMMARY_DIMENSIONS and their allocation fields, if any: the monthly summary. */
export function summaryGroups(monthly: readonly RollupGroup[]): RollupGroup[] {
  const sums = new RollupGroupSums();
  for (const group of monthly) {
    const id: RollupGroupId = {};
    for (const name of SUMMARY_DIMENSIONS) if (name in group._id) id[name] = group._id[name];
    if (group._id.tags !== undefined) id.tags = group._id.tags;
    if (group._id.dimensions !== undefined) id.dimensions = group._id.dimensions;
    sums.add(dimensionsKey(id), id, group.lineItems, group);
  }
  return sums.rows();
}

/** The daily groups summed over their days: the monthly level (`period` is a dimension of both). */
export function monthlyGroups(daily: readonly RollupGroup[]): RollupGroup[] {
  const months = new RollupGroupSums();
  for (const day of daily) {
    const { day: _day, ...dimensions } = day._id as RollupGroupId;
    months.add(dimensionsKey(dimensions), dimensions, day.lineItems, day);
  }
  return months.rows();
}

/**
 * An upload's stored rows by resource summed by the monthly dimensions and the tags a
 * classification reads (`rollupGroupsPipeline` by month over them, counting their line items):
 * `allocatedGroups` of these is what `monthlyGroups(allocatedGroups(…))` gives from the line items,
 * since the rows keep every field a rule may read (the expression language reads rolled-up
 * dimensions and tags only). The database sums them, so that a rule change reads a few groups per
 * month instead of every row by resource whole with all its tags.
 */
export function resourceMonthlyPipeline(uploadRefId: string, allocation: AllocationModel): PipelineStage[] {
  const [match, group] = rollupGroupsPipeline({ uploadRefId }, allocation, 'month') as [PipelineStage.Match, PipelineStage.Group];
  return [match, { $group: { ...group.$group, lineItems: { $sum: '$lineItems' } } }];
}

/**
 * An upload's line items summed by UTC day and only what the allocation rows by day need: their
 * dimensions (ALLOCATION_ROW_DIMENSIONS), the fields the rules read and the tags a classification
 * reads. `allocationRows(allocatedGroups(…))` of these equals that of `rollupPipeline`'s groups,
 * which also keep every other rolled-up dimension; narrower keys make fewer groups and a cheaper
 * pass over the line items when a rule change recomputes the rows by day. One `$group`: the day
 * is formatted per line item, which databases do natively.
 */
export function allocationDailyPipeline(uploadRefId: string, allocation: AllocationModel): PipelineStage[] {
  const fields = new Set<string>([...ALLOCATION_ROW_DIMENSIONS, ...allocation.ruleFields()]);
  const id: Record<string, unknown> = Object.fromEntries([...fields].map((name) => [name, `$${name}`]));
  id.day = { $dateToString: { format: '%Y-%m-%d', date: '$chargePeriodStart' } };
  id.tags = allocation.groupingTags();
  const sums = amountSums();
  return [{ $match: { uploadRefId } }, { $group: { _id: id, ...sums, lineItems: { $sum: 1 } } }] as PipelineStage[];
}
