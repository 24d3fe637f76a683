import { Schema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const COST_ROLLUP = 'CostRollup';
export const COST_ROLLUP_MONTHLY = 'CostRollupMonthly';
export const ROLLUP_KEY = 'RollupKey';
export const COST_ROLLUP_ALLOCATION = 'CostRollupAllocation';
export const COST_ROLLUP_ALLOCATION_DAILY = 'CostRollupAllocationDaily';
export const COST_ROLLUP_MONTHLY_ALLOCATED = 'CostRollupMonthlyAllocated';
export const COST_ROLLUP_MONTHLY_SUMMARY = 'CostRollupMonthlySummary';
export const COST_ROLLUP_MONTHLY_SUMMARY_ALLOCATED = 'CostRollupMonthlySummaryAllocated';
export const COST_ROLLUP_MONTHLY_RESOURCES = 'CostRollupMonthlyResources';

/** The line-item fields a rollup row groups by (absent when the line items have none). */
export const ROLLUP_DIMENSIONS = [
  'providerName',
  'billingAccountId',
  'billingAccountName',
  'assetAccountId',
  'category',
  'serviceCategory',
  'serviceName',
  'region',
  'chargeCategory',
  'billingCurrency',
  'currency',
  'period',
  'billingPeriod',
] as const;

/** The cost columns a rollup row sums (doubles summed by the database, never rounded). */
export const ROLLUP_AMOUNTS = ['cost', 'billedCost', 'effectiveCost', 'listCost', 'contractedCost'] as const;

export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];
export type RollupAmount = (typeof ROLLUP_AMOUNTS)[number];

/**
 * The sums of one upload's line items for one UTC day of ChargePeriodStart and one combination of
 * dimensions. `chargePeriodStart` is the day's midnight (UTC), so range filters and day buckets
 * written for line items run unchanged over rollups; `lineItems` counts the rows summed.
 */
export type CostRollup = {
  tenantId: string;
  uploadRefId: string;
  chargePeriodStart: Date | null;
  lineItems: number;
  /** The line items' tags of activated keys (docs/allocation.md); absent while the tenant activated none. */
  tags?: Array<{ group: string; key: string; value: string }>;
  /** The line items' value of every virtual dimension; absent while the tenant defined none. */
  dimensions?: Record<string, string>;
} & Partial<Record<RollupDimension, string | null>> &
  Record<RollupAmount, number>;

const dimensions = Object.fromEntries(ROLLUP_DIMENSIONS.map((name) => [name, String]));
const amounts = Object.fromEntries(ROLLUP_AMOUNTS.map((name) => [name, Number]));
const allocation = {
  tags: { type: [new Schema({ group: String, key: String, value: String }, { _id: false })], default: undefined },
  dimensions: { type: Schema.Types.Mixed, default: undefined },
};

export const CostRollupSchema = new Schema<CostRollup>(
  { uploadRefId: { type: String, required: true }, chargePeriodStart: Date, lineItems: Number, ...dimensions, ...allocation, ...amounts },
  { collection: 'cost_rollups', versionKey: false },
);
CostRollupSchema.plugin(tenantScopedPlugin);
CostRollupSchema.index({ tenantId: 1, uploadRefId: 1 });
CostRollupSchema.index({ tenantId: 1, period: 1 });

/**
 * The same sums one level up: one upload's line items for one combination of dimensions (`period`,
 * the month the charges belong to, is one of them), all days together. They answer every query
 * that reads no day (docs/rollups.md), so those read ~30 times fewer rows than the daily level.
 */
export type CostRollupMonthly = Omit<CostRollup, 'chargePeriodStart'>;

/** A collection of monthly rows: found by upload (a refresh) and by period (every query). */
function monthlyRowsSchema(collection: string, withAllocation: boolean, extra: Record<string, unknown> = {}): Schema<CostRollupMonthly> {
  const schema = new Schema<CostRollupMonthly>(
    {
      uploadRefId: { type: String, required: true },
      lineItems: Number,
      ...dimensions,
      ...extra,
      ...(withAllocation ? allocation : {}),
      ...amounts,
    },
    { collection, versionKey: false },
  );
  schema.plugin(tenantScopedPlugin);
  schema.index({ tenantId: 1, uploadRefId: 1 });
  schema.index({ tenantId: 1, period: 1 });
  return schema;
}

export const CostRollupMonthlySchema = monthlyRowsSchema('cost_rollups_monthly', true);

/**
 * The monthly rows with the allocation fields (activated tags, dimension values): what a monthly
 * query reading several allocation fields, or one with other dimensions, reads. `cost_rollups_monthly`
 * keeps none, so queries that read no allocation field read as few rows as before allocation.
 */
export const CostRollupMonthlyAllocatedSchema = monthlyRowsSchema('cost_rollups_monthly_allocated', true);

/**
 * The dimensions a summary row keeps (docs/rollups.md): the monthly ones without accounts, services
 * and regions, whose combinations (one or more per resource) keep monthly rows from merging.
 */
const SPLITTING_DIMENSIONS: ReadonlySet<string> = new Set([
  'billingAccountId',
  'billingAccountName',
  'assetAccountId',
  'serviceName',
  'region',
]);
export const SUMMARY_DIMENSIONS: readonly string[] = ROLLUP_DIMENSIONS.filter((name) => !SPLITTING_DIMENSIONS.has(name));

/**
 * The monthly rows summed by SUMMARY_DIMENSIONS only: what a monthly query reading no other field
 * (totals by provider and category, the explorer by provider) reads, a few rows per upload and category.
 */
export const CostRollupMonthlySummarySchema = monthlyRowsSchema('cost_rollups_monthly_summary', false);

/**
 * The summary rows with the allocation fields: what a monthly query reading allocation fields and
 * SUMMARY_DIMENSIONS only reads (allocated cost and the showback, cut by the fields split rules read).
 */
export const CostRollupMonthlySummaryAllocatedSchema = monthlyRowsSchema('cost_rollups_monthly_summary_allocated', true);

/**
 * The monthly rows by resource as well (`resourceId`, beside every dimension of the monthly level):
 * what a monthly query reading resource ids reads (the `top-resources` template, totals filtered by a
 * resource). A resource keeps one account, service and region, so these rows are about one per
 * resource, month and charge category, whatever the number of line items each has (hours, days).
 * `tags` here are the line items' own (every key, not only activated ones): what the allocation's
 * monthly rows are computed from after a rule change (docs/allocation.md). No virtual dimensions.
 */
export const CostRollupMonthlyResourcesSchema = monthlyRowsSchema('cost_rollups_monthly_resources', true, { resourceId: String });
CostRollupMonthlyResourcesSchema.index({ tenantId: 1, resourceId: 1 });

/** The line-item fields a resource row keeps beside the monthly level's. */
export const RESOURCE_DIMENSIONS = [...ROLLUP_DIMENSIONS, 'resourceId'] as const;

/** The dimensions an allocation row keeps besides its one allocation field (docs/rollups.md). */
export const ALLOCATION_ROW_DIMENSIONS = ['providerName', 'billingPeriod', 'period', 'billingCurrency', 'currency'] as const;

/**
 * The monthly sums by one allocation field (`field`: `dimension:<name>` or `tag:<group>:<key>`, an
 * activated key of one group) and a few dimensions (ALLOCATION_ROW_DIMENSIONS): the row holds the
 * field as monthly rows do (`dimensions: { <name>: value }`, or `tags` with the key's tag or none),
 * so the same pipelines run over it. One field's rows sum to the upload's cost; a query reading one
 * field and those dimensions reads a few rows per value instead of every combination.
 */
export type CostRollupAllocation = Omit<CostRollupMonthly, 'tags' | 'dimensions'> & {
  field: string;
  /** Daily allocation rows: the day's midnight (UTC). */
  chargePeriodStart?: Date | null;
  tags?: Array<{ group: string; key: string; value: string }>;
  dimensions?: Record<string, string>;
};

export const CostRollupAllocationSchema = new Schema<CostRollupAllocation>(
  {
    uploadRefId: { type: String, required: true },
    field: { type: String, required: true },
    lineItems: Number,
    ...dimensions,
    ...allocation,
    ...amounts,
  },
  { collection: 'cost_rollups_allocation', versionKey: false },
);
CostRollupAllocationSchema.plugin(tenantScopedPlugin);
CostRollupAllocationSchema.index({ tenantId: 1, uploadRefId: 1 });
CostRollupAllocationSchema.index({ tenantId: 1, field: 1, period: 1 });

/** The same by day (`chargePeriodStart`): daily queries on one allocation field (anomalies per dimension, the explorer by day). */
export const CostRollupAllocationDailySchema = new Schema<CostRollupAllocation>(
  {
    uploadRefId: { type: String, required: true },
    field: { type: String, required: true },
    chargePeriodStart: Date,
    lineItems: Number,
    ...dimensions,
    ...allocation,
    ...amounts,
  },
  { collection: 'cost_rollups_allocation_daily', versionKey: false },
);
CostRollupAllocationDailySchema.plugin(tenantScopedPlugin);
CostRollupAllocationDailySchema.index({ tenantId: 1, uploadRefId: 1 });
CostRollupAllocationDailySchema.index({ tenantId: 1, field: 1, period: 1 });

/**
 * The state of one upload's rollup rows. Every write to the upload's line items bumps
 * `generation` and sets `dirtySince` before it writes; a refresh recomputes the rows under a
 * lease (`lockedUntil`) and clears `dirtySince` only if no write bumped the generation meanwhile.
 * The tenant's marker row (`uploadRefId` = BACKFILL_MARKER) says every upload has been rolled up.
 */
export interface RollupKey {
  tenantId: string;
  uploadRefId: string;
  generation: number;
  dirtySince: Date | null;
  lockedUntil: Date | null;
  /**
   * The allocation settings' `rollupRevision` the upload's monthly allocation rows (allocated
   * monthly and summary rows, allocation rows by month) were computed with; `allocationDailyRevision`
   * the same for its allocation rows by day. Queries on allocation fields read them only when every
   * upload's is the tenant's current one (docs/allocation.md, "When a change takes effect").
   */
  allocationRevision?: number | null;
  allocationDailyRevision?: number | null;
}

/**
 * `-7`: rolled up at every level (daily, monthly and the monthly summary with and without allocation
 * fields, allocation rows by month and by day, monthly rows by resource).
 */
export const BACKFILL_MARKER = '*backfilled-7*';
/** Markers of earlier formats: their tenants' uploads are rolled up again (missing levels, allocation in daily rows). */
export const EARLIER_BACKFILL_MARKERS: readonly string[] = [
  '*backfilled*',
  '*backfilled-2*',
  '*backfilled-3*',
  '*backfilled-4*',
  '*backfilled-5*',
  '*backfilled-6*',
];

export const RollupKeySchema = new Schema<RollupKey>(
  {
    uploadRefId: { type: String, required: true },
    generation: { type: Number, default: 0 },
    dirtySince: { type: Date, default: null },
    lockedUntil: { type: Date, default: null },
    allocationRevision: { type: Number, default: null },
    allocationDailyRevision: { type: Number, default: null },
  },
  { collection: 'cost_rollup_keys', versionKey: false },
);
RollupKeySchema.plugin(tenantScopedPlugin);
RollupKeySchema.index({ tenantId: 1, uploadRefId: 1 }, { unique: true });
RollupKeySchema.index({ tenantId: 1, dirtySince: 1 });
