import { Injectable } from '@nestjs/common';
import { Aggregator } from 'mingo';
import type { PipelineStage } from 'mongoose';
import { AllocationModel, UnknownDimensionError } from '../allocation/allocation-model';
import { AllocationModels } from '../allocation/allocation-models';
import { ProviderIdentity } from '../allocation/provider-identity';
import { combineFilters, dimensionsRead } from '../expressions';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { exclusionOf, hiddenUploads, ImportViews } from './import-views';
import {
  allocatedGroups,
  allocationFields,
  filterFields,
  resourceRowsAnswer,
  RollupGroup,
  rollupCanAnswer,
  rollupGroupsPipeline,
  rollupLevelFor,
  monthlyRollupRow,
  RollupLevel,
  rollupRow,
  tagKeysOf,
} from './rollup-fields';
import { ALLOCATION_ROW_DIMENSIONS, ROLLUP_AMOUNTS, SUMMARY_DIMENSIONS } from './schemas/cost-rollup.schema';
import { RollupLevels } from './rollups.repository';
import { AllocationReadiness, RollupsService } from './rollups.service';

export type CostSourceName = 'rollup' | 'line-items';

export type { RollupLevel } from './rollup-fields';

/** Where one aggregation of cost runs: the line items, or the rollups of one level. */
export interface CostSource {
  source: CostSourceName;
  /** `day` or `month` over the rollups, null over the line items. */
  rollupLevel: RollupLevel | null;
  /** Over the line items: the virtual dimensions the query groups by, computed for each selected line item. */
  dimensions?: string[];
  /** Over the monthly level: the rows that keep the allocation fields (`cost_rollups_monthly_allocated`). */
  allocated?: boolean;
  /**
   * Over the monthly level: the summary rows (no account, service or region), with the allocation
   * fields when `allocated` (`cost_rollups_monthly_summary`, `cost_rollups_monthly_summary_allocated`).
   */
  summary?: boolean;
  /** Over the monthly level: its allocation rows of this one field (`dimension:<name>`, `tag:<group>:<key>`). */
  narrow?: string;
  /** Over the monthly level: the rows by resource (`cost_rollups_monthly_resources`), for a query reading resource ids. */
  resources?: boolean;
  /**
   * Daily rollup rows computed for this query from the line items it selects (the rollups being
   * stale): pipelines are written for rollups (`source: 'rollup'`), answers say `line-items`.
   */
  transient?: boolean;
}

export const LINE_ITEMS: CostSource = { source: 'line-items', rollupLevel: null };

/**
 * What one request reads cost through, looked up once beside its other lookups (`RollupPlanner.view`)
 * and passed to `choose` and `aggregate`.
 */
export interface CostView {
  /** Whether the tenant's rollups may answer (`RollupsService.ready`; the stale marks of uploads hidden whole do not count). */
  rollupsReady: boolean;
  /**
   * The import view's filter (docs/rollups.md, "What a concurrent reader sees"): leaves out the
   * rows of imports not yet published and those that published ones replaced; `{}` when none.
   * It holds for line items and rollup rows alike.
   */
  exclusion: Record<string, unknown>;
  /** The tenant's allocation settings (activated tag keys, virtual dimensions): what the rollups hold. */
  allocation: AllocationModel;
  /**
   * Whether the rows holding allocation fields were computed with those settings, by month and by
   * day (`RollupsService.allocationReady`; absent: they were). Until the rebuild after a change has
   * recomputed them, queries reading allocation fields read the line items; the others, the rollups.
   */
  allocationReady?: AllocationReadiness;
  /** One name per provider: comparisons and groupings by `providerName` read canonical names. */
  providers: ProviderIdentity;
}

/** A pipeline that reads only what the view shows: the exclusion joins its leading `$match` (one pass, the same indexes). */
export function excluding(pipeline: PipelineStage[], exclusion: Record<string, unknown>): PipelineStage[] {
  if (Object.keys(exclusion).length === 0) return pipeline;
  const [first, ...rest] = pipeline;
  if (first && '$match' in first) {
    const match = first.$match as Record<string, unknown>;
    return [{ $match: Object.keys(match).length === 0 ? exclusion : { $and: [match, exclusion] } }, ...rest] as PipelineStage[];
  }
  return [{ $match: exclusion }, ...pipeline] as PipelineStage[];
}

/**
 * Chooses where an aggregation of cost runs: the rollups when the filter (expression, scope,
 * visibility) and the fields grouped or summed are all rolled up and the tenant's rollups are
 * current, the line items otherwise; over the rollups, the monthly level unless the query reads
 * the day (`chargePeriodStart`). Pipelines count line items with `lineItemCount(source)`, so one
 * pipeline runs over any of them. Every aggregation reads through the tenant's import view.
 */
@Injectable()
export class RollupPlanner {
  constructor(
    private readonly rollupsService: RollupsService,
    private readonly importViews: ImportViews,
    private readonly levels: RollupLevels,
    private readonly lineItems: CostLineItemRepository,
    private readonly allocation: AllocationModels,
  ) {}

  /**
   * What a request reads through, asked beside its other lookups and passed to `choose` and
   * `aggregate`: the import view (one lookup on its unique index) and, at the same time, whether
   * the rollups may answer (two lookups on indexes of `cost_rollup_keys`, a third while an import runs).
   */
  async view(tenantId: string): Promise<CostView> {
    const view = this.importViews.current(tenantId);
    const hidden = view.then((current) => hiddenUploads(current.hidden));
    const allocation = this.allocation.current(tenantId);
    const [current, rollupsReady, model, allocationReady] = await Promise.all([
      view,
      this.rollupsService.ready(tenantId, new Date(), hidden),
      allocation,
      allocation.then((model) => this.rollupsService.allocationReady(tenantId, model, hidden)),
    ]);
    return {
      rollupsReady,
      allocationReady,
      exclusion: exclusionOf(current.hidden),
      allocation: model,
      providers: await this.providers(tenantId, model),
    };
  }

  /** The tenant's provider identity: its declared providers and the spellings its rollups hold. */
  async providers(tenantId: string, allocation?: AllocationModel): Promise<ProviderIdentity> {
    const [declared, names] = await Promise.all([
      allocation ? Promise.resolve(allocation) : this.allocation.current(tenantId),
      this.rollupsService.providerSpellings(tenantId),
    ]).then(([model, spellings]) => [model.definitions.providers ?? [], spellings] as const);
    if (declared.length === 0 && names.length < 2) return ProviderIdentity.NONE;
    return new ProviderIdentity(declared, names);
  }

  /** For reads outside `aggregate` (lists, exports, lookups of line items): the import view's filter alone. */
  exclusion(tenantId: string): Promise<Record<string, unknown>> {
    return this.importViews.exclusion(tenantId);
  }

  /**
   * A filter for reads of line items outside `aggregate` (lists, exports): the import view's
   * exclusion, and every virtual-dimension condition replaced by the rules behind it (line items
   * do not store dimensions). Throws UnknownDimensionError for a dimension the tenant lacks.
   */
  async lineItemFilter(tenantId: string, filter: Record<string, unknown>): Promise<Record<string, unknown>> {
    const [exclusion, expanded, providers] = await Promise.all([
      this.importViews.exclusion(tenantId),
      this.expandDimensions(tenantId, filter),
      // only a filter comparing providers needs their spellings
      filterFields(filter).has('providerName') ? this.providers(tenantId) : ProviderIdentity.NONE,
    ]);
    return combineFilters(providers.merges ? (providers.filter(expanded) as Record<string, unknown>) : expanded, exclusion);
  }

  /** A filter with its virtual-dimension conditions replaced by the rules behind them (for documents that store none). */
  async expandDimensions(tenantId: string, filter: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (dimensionsRead(filter).size === 0) return filter;
    return (await this.allocation.current(tenantId)).expandDimensions(filter);
  }

  /** Throws UnknownDimensionError when the query reads a dimension the tenant has not defined. */
  async choose(tenantId: string, filter: Record<string, unknown>, readFields: readonly string[], view?: CostView): Promise<CostSource> {
    const allocation = view ? view.allocation : await this.allocation.current(tenantId);
    const dimensions = dimensionsRead(filter);
    for (const field of readFields) if (field.startsWith('dimensions.')) dimensions.add(field.slice('dimensions.'.length));
    for (const name of dimensions) if (!allocation.hasDimension(name)) throw new UnknownDimensionError(name);
    const grouped = readFields.filter((field) => field.startsWith('dimensions.')).map((field) => field.slice('dimensions.'.length));
    const byResource = resourceRowsAnswer(filter, readFields);
    if (!byResource && !rollupCanAnswer(filter, readFields, allocation))
      return grouped.length > 0 ? { ...LINE_ITEMS, dimensions: grouped } : LINE_ITEMS;
    const current = view ?? (await this.view(tenantId));
    if (byResource) return current.rollupsReady ? { source: 'rollup', rollupLevel: 'month', resources: true } : LINE_ITEMS;
    const rollupLevel = rollupLevelFor(filter, readFields);
    const allocationCurrent = !current.allocationReady || current.allocationReady[rollupLevel];
    if (current.rollupsReady && !readsAllocation(filter, readFields)) {
      const summary = rollupLevel === 'month' && summaryAnswers(filter, readFields, current.exclusion) ? { summary: true } : {};
      return { source: 'rollup', rollupLevel, ...summary };
    }
    if (current.rollupsReady && allocationCurrent) {
      const narrow = narrowField(filter, readFields, allocation, current.exclusion);
      if (narrow) return { source: 'rollup', rollupLevel, narrow };
      const summary = rollupLevel === 'month' && summaryAnswers(filter, readFields, current.exclusion) ? { summary: true } : {};
      if (rollupLevel === 'month') return { source: 'rollup', rollupLevel, allocated: true, ...summary };
      // the daily level keeps no allocation fields: rows made for the query
      return { source: 'rollup', rollupLevel: 'day', transient: true };
    }
    // reading a dimension while rollups are stale: rollup rows of the selected line items, made now
    return dimensions.size > 0 ? { source: 'rollup', rollupLevel, transient: true } : LINE_ITEMS;
  }

  /** Runs the pipeline where `choose` said, over what the import view shows (`view`, or looked up now). */
  async aggregate<R>(tenantId: string, where: CostSource, stages: PipelineStage[], view?: CostView): Promise<R[]> {
    const [exclusion, providers] = view
      ? [view.exclusion, view.providers]
      : await Promise.all([this.exclusion(tenantId), this.providers(tenantId)]);
    const pipeline = providers.pipeline(stages);
    if (where.transient) return this.transientAggregate<R>(tenantId, where.rollupLevel ?? 'day', pipeline, exclusion, view?.allocation);
    if (where.source === 'line-items' && dimensionsRead(conjunctsOf(pipeline).match).size + (where.dimensions?.length ?? 0) > 0) {
      const allocation = view ? view.allocation : await this.allocation.current(tenantId);
      return this.lineItemsWithDimensions<R>(tenantId, pipeline, exclusion, allocation, where.dimensions ?? []);
    }
    if (where.narrow) {
      const rows = where.rollupLevel === 'day' ? this.levels.allocationDaily : this.levels.allocation;
      return rows.aggregate<R>(tenantId, excluding(pipeline, combineFilters({ field: where.narrow }, exclusion)));
    }
    const scoped = excluding(pipeline, exclusion);
    if (where.resources) return this.levels.resources.aggregate<R>(tenantId, scoped);
    if (where.allocated)
      return (where.summary ? this.levels.summaryAllocated : this.levels.monthlyAllocated).aggregate<R>(tenantId, scoped);
    if (where.summary) return this.levels.summary.aggregate<R>(tenantId, scoped);
    if (where.source === 'line-items') return this.lineItems.aggregate<R>(tenantId, scoped);
    return where.rollupLevel === 'month'
      ? this.levels.monthly.aggregate<R>(tenantId, scoped)
      : this.levels.daily.aggregate<R>(tenantId, scoped);
  }

  /**
   * A rollup-shaped pipeline over rows made now from the line items it selects: the database
   * groups the line items matching its conditions that read no dimension (with the exclusion) by
   * day (by month for a query reading no day), rolled-up fields and the tags the rules read, the
   * groups get their allocation fields here, and the whole pipeline runs over them in memory. Used
   * while rollups are stale, for queries reading dimensions: each group's rules are evaluated once,
   * not once per line item.
   */
  private async transientAggregate<R>(
    tenantId: string,
    level: RollupLevel,
    pipeline: PipelineStage[],
    exclusion: Record<string, unknown>,
    known?: AllocationModel,
  ): Promise<R[]> {
    const allocation = known ?? (await this.allocation.current(tenantId));
    const plain = conjunctsOf(pipeline).conjuncts.filter((part) => dimensionsRead(part).size === 0);
    const groups = await this.lineItems.aggregate<RollupGroup>(
      tenantId,
      rollupGroupsPipeline(combineFilters(...plain, exclusion), allocation, level),
      'bulk',
    );
    const toRow = level === 'month' ? monthlyRollupRow : rollupRow;
    const rows = allocatedGroups(groups, allocation).map((group) => toRow('', group));
    return new Aggregator(pipeline as never[]).run(rows) as R[];
  }

  /**
   * A pipeline over line items that reads dimensions (a query the rollups cannot answer): its
   * conditions on dimensions are replaced by the rules behind them, so the database selects the
   * line items; when it also groups by a dimension (`grouped`), the selected line items get their
   * values here and the pipeline runs over them in memory.
   */
  private async lineItemsWithDimensions<R>(
    tenantId: string,
    pipeline: PipelineStage[],
    exclusion: Record<string, unknown>,
    allocation: AllocationModel,
    grouped: readonly string[],
  ): Promise<R[]> {
    const { match } = conjunctsOf(pipeline);
    const selection = combineFilters(allocation.expandDimensions(match ?? {}), exclusion);
    if (grouped.length === 0) return this.lineItems.aggregate<R>(tenantId, [{ $match: selection }, ...pipeline.slice(match ? 1 : 0)]);
    const docs = await this.lineItems.aggregate<Record<string, unknown>>(tenantId, [{ $match: selection }], 'bulk');
    for (const doc of docs) doc.dimensions = allocation.classify(doc).dimensions;
    return new Aggregator(pipeline.slice(match ? 1 : 0) as never[]).run(docs) as R[];
  }
}

/** What allocation rows keep besides their field; amounts may be summed. */
const NARROW_FIELDS: ReadonlySet<string> = new Set<string>([...ALLOCATION_ROW_DIMENSIONS, ...ROLLUP_AMOUNTS, 'chargePeriodStart']);

/** What the import view's exclusion may read for allocation and summary rows to apply it (whole uploads, scopes without accounts). */
const NARROW_EXCLUSION: ReadonlySet<string> = new Set(['uploadRefId', 'providerName', 'billingPeriod']);

/** What summary rows keep; amounts may be summed. */
const SUMMARY_FIELDS: ReadonlySet<string> = new Set<string>([...SUMMARY_DIMENSIONS, ...ROLLUP_AMOUNTS]);

/**
 * Whether the monthly summary answers a monthly query: it compares and groups by SUMMARY_DIMENSIONS
 * and allocation fields only (the allocated summary holds them), and so does the view.
 */
function summaryAnswers(filter: Record<string, unknown>, readFields: readonly string[], exclusion: Record<string, unknown>): boolean {
  return (
    [...filterFields(exclusion)].every((field) => NARROW_EXCLUSION.has(field)) &&
    [...filterFields(filter), ...readFields].every((field) => SUMMARY_FIELDS.has(field) || isAllocationField(field))
  );
}

const isAllocationField = (field: string): boolean => field === 'tags' || field.startsWith('tags[') || field.startsWith('dimensions.');

/** Whether a query reads a tag or a dimension. */
function readsAllocation(filter: Record<string, unknown>, readFields: readonly string[]): boolean {
  return [...filterFields(filter), ...readFields].some(isAllocationField);
}

/**
 * The one allocation field a query reads, when its allocation rows (by month, or by day) can answer it: it
 * compares and groups by that field and ALLOCATION_ROW_DIMENSIONS only, and the import view hides
 * no scope by billing account.
 */
function narrowField(
  filter: Record<string, unknown>,
  readFields: readonly string[],
  allocation: AllocationModel,
  exclusion: Record<string, unknown>,
): string | undefined {
  if (![...filterFields(exclusion)].every((field) => NARROW_EXCLUSION.has(field))) return undefined;
  const fields = new Set<string>();
  for (const field of [...filterFields(filter), ...readFields]) {
    if (NARROW_FIELDS.has(field)) continue;
    if (field.startsWith('dimensions.')) fields.add(`dimension:${field.slice('dimensions.'.length)}`);
    else if (field.startsWith('tags[')) {
      const [group, key] = JSON.parse(field.slice('tags'.length)) as [string, string];
      fields.add(`tag:${group}:${key}`);
    } else if (field === 'tags') {
      for (const { group, key } of tagKeysOf(filter) ?? [{ group: '', key: '' }]) fields.add(`tag:${group}:${key}`);
    } else return undefined;
  }
  const [field] = fields;
  return fields.size === 1 && allocationFields(allocation).includes(field) ? field : undefined;
}

/** The conjuncts of a leading `$match` (the whole filter when it is not an `$and`). */
function conjunctsOf(pipeline: PipelineStage[]): { match?: Record<string, unknown>; conjuncts: Record<string, unknown>[] } {
  const [first] = pipeline;
  const match = first && '$match' in first ? (first.$match as Record<string, unknown>) : undefined;
  if (!match) return { conjuncts: [] };
  const single = Array.isArray(match.$and) && Object.keys(match).length === 1;
  return { match, conjuncts: single ? (match.$and as Record<string, unknown>[]) : [match] };
}

/** What an answer says it was read from: a transient source's rows were made from the line items. */
export const answeredFrom = (where: CostSource): CostSourceName => (where.transient ? 'line-items' : where.source);

/** The `$sum` argument counting line items: one per line item, or each rollup row's count. */
export const lineItemCount = (source: CostSourceName): 1 | '$lineItems' => (source === 'rollup' ? '$lineItems' : 1);
