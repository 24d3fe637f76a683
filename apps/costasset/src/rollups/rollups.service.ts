import { Injectable, Logger } from '@nestjs/common';
import { isDuplicateKey } from '@lib/core';
import { AllocationModel } from '../allocation/allocation-model';
import { AllocationModels } from '../allocation/allocation-models';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { RollupAccumulator } from './rollup-accumulator';
import {
  allocatedGroups,
  allocationDailyPipeline,
  allocationRows,
  baseGroups,
  monthlyGroups,
  monthlyRollupRow,
  RollupGroup,
  resourceMonthlyPipeline,
  resourceRowsPipeline,
  rollupPipeline,
  rollupRow,
  summaryGroups,
} from './rollup-fields';
import { RollupKeyRepository, RollupLevels } from './rollups.repository';
import { BACKFILL_MARKER, EARLIER_BACKFILL_MARKERS } from './schemas/cost-rollup.schema';

/** A collection of rollup rows, as the refresh writes it. */
interface RollupLevel {
  deleteMany(tenantId: string, filter: Record<string, unknown>): Promise<number>;
  insertBulk(tenantId: string, docs: never[]): Promise<number>;
}

/** An upload's line items summed: daily groups (every level but one is made of them) and the monthly groups by resource. */
interface UploadSums {
  daily: RollupGroup[];
  /** Undefined when summed by the database as they are stored (`resourcePipeline`): a refresh, a load with too many. */
  resources: RollupGroup[] | undefined;
}

/** How long one refresh may hold an upload's lease before another may take it over. */
const REFRESH_LEASE_MS = 15 * 60_000;
/** A stale mark older than this, with nobody refreshing, is left over by a crash: the next query repairs it. */
export const REPAIR_AFTER_MS = 30 * 60_000;
const INSERT_BATCH = 5_000;
/** How long the spellings of provider names a tenant's rollups hold are reused (`providerSpellings`). */
const PROVIDER_SPELLINGS_MS = 30_000;
/** The earliest date BSON holds: `$gt` it matches every date and nothing else (a stale mark; null is none). */
const EARLIEST_DATE = new Date(-8.64e15);
const NOTHING_HIDDEN: ReadonlySet<string> = new Set();
const MARKERS: readonly string[] = [BACKFILL_MARKER, ...EARLIER_BACKFILL_MARKERS];

/** Whether the allocation rows by month and by day hold the tenant's current settings (`allocationReady`). */
export interface AllocationReadiness {
  month: boolean;
  day: boolean;
}
const ALLOCATION_READY: AllocationReadiness = { month: true, day: true };

/**
 * Keeps the rollups equal to the line items (docs/rollups.md). Every write path calls `begin`
 * with the uploads it is about to change and `refresh` once it has changed them; `refresh`
 * recomputes each upload's rows from its line items (delete, then insert), so a redo after a
 * crash recomputes instead of adding twice. Until an upload is refreshed, its mark keeps queries
 * on the line items.
 */
@Injectable()
export class RollupsService {
  private readonly logger = new Logger(RollupsService.name);
  private readonly running = new Map<string, Promise<void>>();
  private readonly spellings = new Map<string, { names: Promise<string[]>; until: number }>();

  constructor(
    private readonly lineItems: CostLineItemRepository,
    private readonly levels: RollupLevels,
    private readonly keys: RollupKeyRepository,
    private readonly allocation: AllocationModels,
  ) {}

  /** The uploads holding line items that match a filter (on the tenant + upload index for one upload). */
  async uploadsMatching(tenantId: string, filter: Record<string, unknown>): Promise<string[]> {
    const rows = await this.lineItems.aggregate<{ _id: string | null }>(
      tenantId,
      [{ $match: filter }, { $group: { _id: '$uploadRefId' } }],
      'bulk',
    );
    return rows.map((row) => row._id).filter((id): id is string => typeof id === 'string');
  }

  /**
   * The spellings of provider names the tenant's monthly rollups hold (a distinct), kept for
   * PROVIDER_SPELLINGS_MS and dropped when this instance stores rollups (another instance's new
   * spelling is seen that much later at most).
   */
  providerSpellings(tenantId: string, now = Date.now()): Promise<string[]> {
    const known = this.spellings.get(tenantId);
    if (known && known.until >= now) return known.names;
    const names = this.levels.monthly
      .distinct<string>(tenantId, 'providerName')
      .then((found) => found.filter((name) => typeof name === 'string'));
    this.spellings.set(tenantId, { names, until: now + PROVIDER_SPELLINGS_MS });
    names.catch(() => this.spellings.delete(tenantId));
    return names;
  }

  /** Before changing the line items of these uploads. */
  begin(tenantId: string, uploadRefIds: string[]): Promise<void> {
    return this.keys.markDirty(tenantId, [...new Set(uploadRefIds)]);
  }

  /** After changing them: recomputes each upload's rollup rows. */
  async refresh(tenantId: string, uploadRefIds: string[]): Promise<void> {
    const unique = [...new Set(uploadRefIds)];
    // a write that happened after a concurrent refresh read the line items must make it run again
    await this.keys.markDirty(tenantId, unique);
    for (const uploadRefId of unique) await this.refreshOne(tenantId, uploadRefId);
  }

  /**
   * After the allocation settings were saved with a new `rollupRevision`: uploads being written or
   * refreshed now are bumped, so that their writers recompute with the new settings instead of
   * settling rows computed with the old ones. The others keep their rows; `refreshAllocation` (the
   * rebuild job) recomputes their allocation rows, and until it has, queries reading allocation
   * fields read the line items (`allocationReady`) while all others go on reading the rollups.
   */
  async allocationChanged(tenantId: string): Promise<void> {
    await this.keys.bumpStale(tenantId);
  }

  /**
   * The rebuild job's work: recomputes the allocation rows of every upload whose rows were computed
   * with other settings than the current ones. The monthly ones first, from the rows by resource
   * (a few rows per resource and month, which keep every field a rule may read, instead of the line
   * items), then those by day, from the line items. Progress in uploads (each upload counted in both
   * passes); answers the number of uploads recomputed.
   */
  async refreshAllocation(tenantId: string, progress: (done: number, total: number) => Promise<void>): Promise<number> {
    const model = await this.allocation.current(tenantId);
    const monthly = await this.lagging(tenantId, 'allocationRevision', model.rollupRevision);
    let daily = await this.lagging(tenantId, 'allocationDailyRevision', model.rollupRevision);
    const total = monthly.length + daily.length;
    let done = 0;
    await progress(0, total);
    for (const uploadRefId of monthly) {
      await this.refreshAllocationOf(tenantId, uploadRefId, 'month');
      await progress(++done, total);
    }
    // those recomputed whole meanwhile (a write) are current by day too
    daily = await this.lagging(tenantId, 'allocationDailyRevision', model.rollupRevision);
    for (const uploadRefId of daily) {
      await this.refreshAllocationOf(tenantId, uploadRefId, 'day');
      await progress(++done, total);
    }
    await progress(total, total);
    return new Set([...monthly, ...daily]).size;
  }

  /**
   * Uploads whose allocation rows (`field`) were not computed with `revision`, among every upload
   * with rollup state (every write path marks its upload before it writes, the backfill those
   * written before rollups existed): one read on the tenant index of the keys.
   */
  private async lagging(tenantId: string, field: 'allocationRevision' | 'allocationDailyRevision', revision: number): Promise<string[]> {
    const states = await this.keys.find(tenantId, { uploadRefId: { $nin: MARKERS }, [field]: { $ne: revision } }, {}, { uploadRefId: 1 });
    return states.map((state) => state.uploadRefId);
  }

  /**
   * Recomputes one upload's allocation rows under its lease: `month` from its rows by resource,
   * `day` from its line items. An upload being written (stale) is left to its writer, one written
   * meanwhile is recomputed whole (`refreshOne`), one already at the current settings (another
   * instance's job, or a load) is left alone.
   */
  private async refreshAllocationOf(tenantId: string, uploadRefId: string, scope: 'month' | 'day'): Promise<void> {
    const state = await this.keys.lock(tenantId, uploadRefId, REFRESH_LEASE_MS);
    // someone refreshes it: with the current settings (allocationChanged bumped anyone who had read others)
    if (!state) return;
    const model = await this.allocation.current(tenantId);
    const revisionOf = scope === 'day' ? state.allocationDailyRevision : state.allocationRevision;
    if (!state.dirtySince && revisionOf === model.rollupRevision) {
      await this.keys.unlock(tenantId, uploadRefId);
      return;
    }
    // being written: its writer settles it with the current settings (allocationChanged bumped it)
    if (state.dirtySince) return this.keys.unlock(tenantId, uploadRefId);
    try {
      for (const [level, rows] of await this.allocationLevelRows(tenantId, uploadRefId, scope, model))
        await this.replaceRows(level, tenantId, uploadRefId, rows);
    } catch (error) {
      await this.keys.unlock(tenantId, uploadRefId);
      throw error;
    }
    const field = scope === 'month' ? 'allocationRevision' : 'allocationDailyRevision';
    if (await this.keys.settleAllocation(tenantId, uploadRefId, state.generation, field, model.rollupRevision)) return;
    // a write came meanwhile and relied on this lease: recompute it whole
    await this.keys.unlock(tenantId, uploadRefId);
    await this.refreshOne(tenantId, uploadRefId);
  }

  private async allocationLevelRows(
    tenantId: string,
    uploadRefId: string,
    scope: 'month' | 'day',
    model: AllocationModel,
  ): Promise<[RollupLevel, object[]][]> {
    if (scope === 'month') {
      const groups = await this.levels.resources.aggregate<RollupGroup>(tenantId, resourceMonthlyPipeline(uploadRefId, model), 'bulk');
      return this.monthlyAllocationRows(uploadRefId, allocatedGroups(groups, model), model);
    }
    const groups = await this.lineItems.aggregate<RollupGroup>(tenantId, allocationDailyPipeline(uploadRefId, model), 'bulk');
    return [[this.levels.allocationDaily, allocationRows(uploadRefId, allocatedGroups(groups, model), model)]];
  }

  /**
   * Whether the allocation rows of every upload readers see (all but `hidden`: imports at work) hold
   * the current settings, by month and by day: one lookup each on the tenant's rollup keys.
   */
  async allocationReady(
    tenantId: string,
    allocation: AllocationModel,
    hidden: ReadonlySet<string> | Promise<ReadonlySet<string>> = NOTHING_HIDDEN,
  ): Promise<AllocationReadiness> {
    if (allocation.isEmpty && allocation.rollupRevision === 0) return ALLOCATION_READY;
    const skipped = { $nin: [...MARKERS, ...(await hidden)] };
    const [month, day] = await Promise.all(
      (['allocationRevision', 'allocationDailyRevision'] as const).map((field) =>
        this.keys.exists(tenantId, { uploadRefId: skipped, [field]: { $ne: allocation.rollupRevision } }),
      ),
    );
    return { month: !month, day: !day };
  }

  /** Follows a load of one upload's line items (enrichment, FOCUS import): see LoadTracker. */
  track(tenantId: string, uploadRefId: string): LoadTracker {
    return new LoadTracker(
      tenantId,
      uploadRefId,
      this.keys,
      () => this.allocation.current(tenantId),
      (sums, generation, allocation) => this.replace(tenantId, uploadRefId, sums, generation, allocation),
      (sums, allocation, part) => this.insertPart(tenantId, uploadRefId, sums, allocation, part),
    );
  }

  /** `begin`, the work, then `refresh` of every upload whose line items match `filter` before the work. */
  async around<T>(tenantId: string, filter: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
    const uploads = await this.uploadsMatching(tenantId, filter);
    await this.begin(tenantId, uploads);
    try {
      return await work();
    } finally {
      await this.refresh(tenantId, uploads);
    }
  }

  /**
   * Whether the tenant's rollups may answer now: every upload rolled up (the backfill marker) and
   * none stale but those no reader sees (`hidden`, the uploads an import view hides whole: an
   * import still running keeps its upload stale, and the tenant's other rollups answer meanwhile).
   * Starts the backfill of uploads written before rollups existed, or the repair of marks a crash
   * left behind, in the background.
   */
  async ready(
    tenantId: string,
    now = new Date(),
    hidden: ReadonlySet<string> | Promise<ReadonlySet<string>> = NOTHING_HIDDEN,
  ): Promise<boolean> {
    // two lookups on indexes (the marker by upload id, the oldest stale mark by date), at once:
    // their cost does not grow with the tenant's number of uploads
    const [marker, oldestStale, hiddenUploads] = await Promise.all([
      this.keys.findOne(tenantId, { uploadRefId: BACKFILL_MARKER }),
      this.keys.findOne(tenantId, { dirtySince: { $gt: EARLIEST_DATE } }, { sort: { dirtySince: 1 } }),
      hidden,
    ]);
    if (!marker && !(await this.backfill(tenantId))) return false;
    if (oldestStale && (oldestStale.dirtySince as Date).getTime() < now.getTime() - REPAIR_AFTER_MS)
      this.inBackground(tenantId, () => this.repair(tenantId, now));
    if (!oldestStale) return true;
    if (!hiddenUploads.has(oldestStale.uploadRefId)) return false;
    // the oldest mark is a hidden upload's (an import at work): a third lookup, on the same index,
    // for a mark of any other upload
    return !(await this.keys.exists(tenantId, { dirtySince: { $gt: EARLIEST_DATE }, uploadRefId: { $nin: [...hiddenUploads] } }));
  }

  /**
   * Marks the tenant backfilled at once when every upload holding line items has rollup state of
   * this format (true); otherwise rolls up the others in the background, then marks it (false).
   * One scan of the tenant's line items, once per tenant (and once more when the rollups' format
   * changed: a tenant marked by an earlier format has every upload rolled up again).
   */
  private async backfill(tenantId: string): Promise<boolean> {
    const known = new Set((await this.keys.find(tenantId, {}, {}, { uploadRefId: 1 })).map((state) => state.uploadRefId));
    const earlierFormat = EARLIER_BACKFILL_MARKERS.some((marker) => known.has(marker));
    const missing = (await this.uploadsMatching(tenantId, {})).filter((id) => earlierFormat || !known.has(id));
    const mark = () =>
      this.keys
        .updateOne(
          tenantId,
          { uploadRefId: BACKFILL_MARKER },
          { $set: { generation: 0, dirtySince: null, lockedUntil: null } },
          { upsert: true },
        )
        // two first queries at once: the other one marked it
        .catch((error: unknown) => {
          if (!isDuplicateKey(error)) throw error;
          return 1;
        });
    if (missing.length === 0) {
      await mark();
      return true;
    }
    this.inBackground(tenantId, async () => {
      await this.refresh(tenantId, missing);
      await mark();
    });
    return false;
  }

  /** Refreshes the uploads whose stale mark outlived REPAIR_AFTER_MS (a writer that crashed and was not redone). */
  async repair(tenantId: string, now = new Date()): Promise<void> {
    const stale = await this.keys.find(
      tenantId,
      { dirtySince: { $lt: new Date(now.getTime() - REPAIR_AFTER_MS) } },
      {},
      { uploadRefId: 1 },
    );
    await this.refresh(
      tenantId,
      stale.map((state) => state.uploadRefId),
    );
  }

  private inBackground(tenantId: string, work: () => Promise<void>): void {
    if (this.running.has(tenantId)) return;
    const run = work()
      .catch((error: unknown) => this.logger.error({ err: error, tenantId }, 'rollup maintenance failed'))
      .finally(() => this.running.delete(tenantId));
    this.running.set(tenantId, run);
  }

  /**
   * Stores rows summed while loading when nothing but the load changed the upload since its last
   * bump (`generation`); otherwise recomputes them from the line items.
   */
  private async replace(
    tenantId: string,
    uploadRefId: string,
    sums: UploadSums,
    generation: number,
    allocation: AllocationModel,
  ): Promise<void> {
    const state = await this.keys.lock(tenantId, uploadRefId, REFRESH_LEASE_MS);
    if (state && state.generation === generation) {
      if (await this.store(tenantId, uploadRefId, state.generation, () => Promise.resolve({ ...sums, allocation }))) return;
    } else if (state) {
      await this.keys.unlock(tenantId, uploadRefId);
    }
    await this.refresh(tenantId, [uploadRefId]);
  }

  private async refreshOne(tenantId: string, uploadRefId: string): Promise<void> {
    for (;;) {
      const state = await this.keys.lock(tenantId, uploadRefId, REFRESH_LEASE_MS);
      // someone else refreshes: it will see the generation this call bumped and recompute
      if (!state) return;
      if (
        await this.store(tenantId, uploadRefId, state.generation, async () => {
          const allocation = await this.allocation.current(tenantId);
          const groups = await this.lineItems.aggregate<RollupGroup>(tenantId, rollupPipeline(uploadRefId, allocation), 'bulk');
          return { daily: allocatedGroups(groups, allocation), resources: undefined, allocation };
        })
      )
        return;
    }
  }

  /**
   * Under the lease: replaces the upload's rows at every level, then settles. False when a write
   * came meanwhile: the lease is then given back, so that the caller's next round (or whoever takes
   * the lease first) recomputes; a writer that found the lease taken relied on that.
   */
  private async store(
    tenantId: string,
    uploadRefId: string,
    generation: number,
    compute: () => Promise<UploadSums & { allocation: AllocationModel }>,
  ): Promise<boolean> {
    let allocationUsed = AllocationModel.EMPTY;
    try {
      const { allocation, daily, resources } = await compute();
      allocationUsed = allocation;
      for (const [level, rows] of this.levelRows(uploadRefId, daily, allocation))
        await this.replaceRows(level, tenantId, uploadRefId, rows);
      await this.replaceResourceRows(tenantId, { uploadRefId }, resources);
    } catch (error) {
      await this.keys.unlock(tenantId, uploadRefId);
      throw error;
    }
    this.spellings.delete(tenantId);
    if (await this.keys.settle(tenantId, uploadRefId, generation, allocationUsed.rollupRevision)) return true;
    await this.keys.unlock(tenantId, uploadRefId);
    return false;
  }

  /** The rows of every level made of an upload's daily groups: what `store` puts in place of the upload's rows. */
  /**
   * Replaces the rows by resource of an upload (or of one part of it): the groups a load summed, or,
   * when it has none (`undefined`), the database's sums of the stored line items, written by the
   * database's results passing through as they are (an upload of a large estate has hundreds of
   * thousands: never decoded here).
   */
  private async replaceResourceRows(
    tenantId: string,
    match: { uploadRefId: string; uploadPart?: number },
    groups: RollupGroup[] | undefined,
  ): Promise<void> {
    await this.levels.resources.deleteMany(tenantId, match);
    if (!groups) {
      await this.lineItems.aggregateInto(tenantId, resourceRowsPipeline(match), this.levels.resources);
      return;
    }
    const rows = groups.map((group) => {
      const row = monthlyRollupRow(match.uploadRefId, group);
      return match.uploadPart === undefined ? row : { ...row, uploadPart: match.uploadPart };
    });
    for (let start = 0; start < rows.length; start += INSERT_BATCH)
      await this.levels.resources.insertBulk(tenantId, rows.slice(start, start + INSERT_BATCH) as never[]);
  }

  private levelRows(uploadRefId: string, daily: RollupGroup[], allocation: AllocationModel): [RollupLevel, object[]][] {
    const monthly = monthlyGroups(daily);
    const baseMonthly = baseGroups(monthly);
    return [
      [this.levels.daily, baseGroups(daily).map((group) => rollupRow(uploadRefId, group))],
      [this.levels.monthly, baseMonthly.map((group) => monthlyRollupRow(uploadRefId, group))],
      [this.levels.summary, summaryGroups(baseMonthly).map((group) => monthlyRollupRow(uploadRefId, group))],
      ...this.monthlyAllocationRows(uploadRefId, monthly, allocation),
      [this.levels.allocationDaily, allocationRows(uploadRefId, daily, allocation)],
    ];
  }

  /** The levels made of monthly groups with allocation fields: what a rule change recomputes from the rows by resource. */
  private monthlyAllocationRows(uploadRefId: string, monthly: RollupGroup[], allocation: AllocationModel): [RollupLevel, object[]][] {
    return [
      [this.levels.summaryAllocated, allocation.isEmpty ? [] : summaryGroups(monthly).map((group) => monthlyRollupRow(uploadRefId, group))],
      [this.levels.monthlyAllocated, allocation.isEmpty ? [] : monthly.map((group) => monthlyRollupRow(uploadRefId, group))],
      [this.levels.allocation, allocationRows(uploadRefId, monthly, allocation)],
    ];
  }

  /**
   * Adds the rows of one part of a load (its jobs' sums, `LoadTracker.storePart`) beside the other
   * parts' rows, each marked with the part (a retry of the part replaces its own). Readers sum rows
   * of one key whatever their number; `settleParts` then marks the upload current.
   */
  private async insertPart(
    tenantId: string,
    uploadRefId: string,
    sums: UploadSums,
    allocation: AllocationModel,
    part: number,
  ): Promise<void> {
    for (const [level, rows] of this.levelRows(uploadRefId, sums.daily, allocation)) {
      await level.deleteMany(tenantId, { uploadRefId, uploadPart: part });
      for (const row of rows) (row as { uploadPart?: number }).uploadPart = part;
      for (let start = 0; start < rows.length; start += INSERT_BATCH)
        await level.insertBulk(tenantId, rows.slice(start, start + INSERT_BATCH) as never[]);
    }
    await this.replaceResourceRows(tenantId, { uploadRefId, uploadPart: part }, sums.resources);
  }

  /**
   * After the parts of a load stored their rows: the upload's rollups are current when nobody but
   * the load changed the upload meanwhile (its generation is the one the load's bumps lead to, every
   * part's sums complete); otherwise they are recomputed from the line items. True when settled.
   */
  async settleParts(tenantId: string, uploadRefId: string, generation: number, complete: boolean): Promise<boolean> {
    const state = await this.keys.lock(tenantId, uploadRefId, REFRESH_LEASE_MS);
    // the parts read the settings after their first bump: a change saved since bumped the upload (`allocationChanged`)
    const { rollupRevision } = await this.allocation.current(tenantId);
    if (
      state &&
      complete &&
      state.generation === generation &&
      (await this.keys.settle(tenantId, uploadRefId, generation, rollupRevision))
    ) {
      this.spellings.delete(tenantId);
      return true;
    }
    if (state) await this.keys.unlock(tenantId, uploadRefId);
    await this.refresh(tenantId, [uploadRefId]);
    return false;
  }

  private async replaceRows(level: RollupLevel, tenantId: string, uploadRefId: string, rows: object[]): Promise<void> {
    await level.deleteMany(tenantId, { uploadRefId });
    for (let start = 0; start < rows.length; start += INSERT_BATCH)
      await level.insertBulk(tenantId, rows.slice(start, start + INSERT_BATCH) as never[]);
  }
}

/**
 * A load's side of the rollups: `touch` before removing the upload's rows and after every batch
 * (the stale mark stays fresh, and a bump by anyone else shows as a gap in the generations),
 * `add` with each cost document handed to the writer and `stored` after each batch's insert (or
 * `written` for a batch at once), `finish` at the end. The rows summed in
 * memory are stored only if the load was the upload's only writer; otherwise they are recomputed.
 * `maintenanceMs` is the time the load spent in all three (what rollups add to a load).
 */
export class LoadTracker {
  private sums: RollupAccumulator | undefined;
  private model: AllocationModel | undefined;
  private generation: number | undefined;
  private alone = true;
  /** Every batch's documents were summed (none left out by a partial write). */
  private summedAll = true;
  private bumpCount = 0;
  private spentMs = 0;

  constructor(
    private readonly tenantId: string,
    private readonly uploadRefId: string,
    private readonly keys: RollupKeyRepository,
    private readonly allocation: () => Promise<AllocationModel>,
    private readonly replace: (sums: UploadSums, generation: number, allocation: AllocationModel) => Promise<void>,
    private readonly insertPart: (sums: UploadSums, allocation: AllocationModel, part: number) => Promise<void>,
  ) {}

  get maintenanceMs(): number {
    return this.spentMs;
  }

  async touch(): Promise<void> {
    const started = performance.now();
    try {
      const generation = await this.keys.bump(this.tenantId, this.uploadRefId);
      this.bumpCount++;
      if (this.generation !== undefined && generation !== this.generation + 1) this.alone = false;
      this.generation = generation;
      // the settings read after the first bump: a change saved later marks the upload stale, a gap here
      if (!this.sums) {
        this.model = await this.allocation();
        this.sums = new RollupAccumulator(this.model);
      }
    } finally {
      this.spentMs += performance.now() - started;
    }
  }

  /**
   * Sums a cost document as it is handed to the writer (which keeps its bytes, not the object).
   * `stored` then says, per batch, whether the database kept them all.
   */
  add(doc: object): void {
    const started = performance.now();
    this.sums?.addOne(doc as Record<string, unknown>);
    this.spentMs += performance.now() - started;
  }

  /** After a batch's insert: `sent` documents summed by `add`, `stored` kept. Sums short of the rows are recomputed. */
  stored(sent: number, stored: number): void {
    if (stored !== sent || !this.sums) {
      this.alone = false;
      this.summedAll = false;
    }
  }

  /** A batch of cost documents written at once: `add` of each, then `stored`. */
  written(docs: readonly object[], stored: number): void {
    for (const doc of docs) this.add(doc);
    this.stored(docs.length, stored);
  }

  /** The upload's generation after this tracker's last bump. */
  get lastGeneration(): number | undefined {
    return this.generation;
  }

  /** Bumps this tracker made, and whether it summed every document written (what `settleParts` checks). */
  get parts(): { bumps: number; complete: boolean } {
    return { bumps: this.bumpCount, complete: this.summedAll && this.sums !== undefined };
  }

  /** Stores the sums as the rows of one part of a load (one of several jobs loading one upload). */
  async storePart(part: number): Promise<void> {
    const started = performance.now();
    try {
      await this.insertPart(this.uploadSums(), this.model ?? AllocationModel.EMPTY, part);
    } finally {
      this.spentMs += performance.now() - started;
    }
  }

  private uploadSums(): UploadSums {
    return { daily: this.sums?.rows() ?? [], resources: this.sums ? this.sums.resourceRows() : [] };
  }

  async finish(): Promise<void> {
    const started = performance.now();
    try {
      await this.replace(
        this.uploadSums(),
        this.alone && this.generation !== undefined ? this.generation : Number.NaN,
        this.model ?? AllocationModel.EMPTY,
      );
    } finally {
      this.spentMs += performance.now() - started;
    }
  }
}
