import { Injectable, Logger } from '@nestjs/common';
import { isDuplicateKey } from '@lib/persistence';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { RollupAccumulator } from './rollup-accumulator';
import { RollupGroup, rollupPipeline, rollupRow } from './rollup-fields';
import { CostRollupRepository, RollupKeyRepository } from './rollups.repository';
import { BACKFILL_MARKER } from './schemas/cost-rollup.schema';

/** How long one refresh may hold an upload's lease before another may take it over. */
const REFRESH_LEASE_MS = 15 * 60_000;
/** A stale mark older than this, with nobody refreshing, is left over by a crash: the next query repairs it. */
export const REPAIR_AFTER_MS = 30 * 60_000;
const INSERT_BATCH = 5_000;

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

  constructor(
    private readonly lineItems: CostLineItemRepository,
    private readonly rollups: CostRollupRepository,
    private readonly keys: RollupKeyRepository,
  ) {}

  /** The uploads holding line items that match a filter (on the tenant + upload index for one upload). */
  async uploadsMatching(tenantId: string, filter: Record<string, unknown>): Promise<string[]> {
    const rows = await this.lineItems.aggregate<{ _id: string | null }>(tenantId, [{ $match: filter }, { $group: { _id: '$uploadRefId' } }], 'bulk');
    return rows.map((row) => row._id).filter((id): id is string => typeof id === 'string');
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

  /** Follows a load of one upload's line items (enrichment, FOCUS import): see LoadTracker. */
  track(tenantId: string, uploadRefId: string): LoadTracker {
    return new LoadTracker(tenantId, uploadRefId, this.keys, (groups, generation) => this.replace(tenantId, uploadRefId, groups, generation));
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
   * none stale. Starts the backfill of uploads written before rollups existed, or the repair of
   * marks a crash left behind, in the background.
   */
  async ready(tenantId: string, now = new Date()): Promise<boolean> {
    const states = await this.keys.find(
      tenantId,
      { $or: [{ uploadRefId: BACKFILL_MARKER }, { dirtySince: { $ne: null } }] },
      { sort: { dirtySince: 1 }, limit: 2 },
    );
    const stale = states.filter((state) => state.dirtySince);
    if (!states.some((state) => state.uploadRefId === BACKFILL_MARKER) && !(await this.backfill(tenantId))) return false;
    if (stale.some((state) => (state.dirtySince as Date).getTime() < now.getTime() - REPAIR_AFTER_MS)) this.inBackground(tenantId, () => this.repair(tenantId, now));
    return stale.length === 0;
  }

  /**
   * Marks the tenant backfilled at once when every upload holding line items has rollup state
   * (true); otherwise rolls up the others in the background, then marks it (false). One scan
   * of the tenant's line items, once per tenant.
   */
  private async backfill(tenantId: string): Promise<boolean> {
    const known = new Set((await this.keys.find(tenantId, {}, {}, { uploadRefId: 1 })).map((state) => state.uploadRefId));
    const missing = (await this.uploadsMatching(tenantId, {})).filter((id) => !known.has(id));
    const mark = () =>
      this.keys
        .updateOne(tenantId, { uploadRefId: BACKFILL_MARKER }, { $set: { generation: 0, dirtySince: null, lockedUntil: null } }, { upsert: true })
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
    const stale = await this.keys.find(tenantId, { dirtySince: { $lt: new Date(now.getTime() - REPAIR_AFTER_MS) } }, {}, { uploadRefId: 1 });
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
  private async replace(tenantId: string, uploadRefId: string, groups: RollupGroup[], generation: number): Promise<void> {
    const state = await this.keys.lock(tenantId, uploadRefId, REFRESH_LEASE_MS);
    if (state && state.generation === generation) {
      if (await this.store(tenantId, uploadRefId, state.generation, () => Promise.resolve(groups))) return;
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
      if (await this.store(tenantId, uploadRefId, state.generation, () => this.lineItems.aggregate<RollupGroup>(tenantId, rollupPipeline(uploadRefId), 'bulk'))) return;
    }
  }

  /** Under the lease: replaces the upload's rows, then settles (false when a write came meanwhile; the lease is kept). */
  private async store(tenantId: string, uploadRefId: string, generation: number, compute: () => Promise<RollupGroup[]>): Promise<boolean> {
    try {
      const groups = await compute();
      await this.rollups.deleteMany(tenantId, { uploadRefId });
      for (let start = 0; start < groups.length; start += INSERT_BATCH) {
        await this.rollups.insertBulk(
          tenantId,
          groups.slice(start, start + INSERT_BATCH).map((group) => rollupRow(uploadRefId, group)),
        );
      }
    } catch (error) {
      await this.keys.unlock(tenantId, uploadRefId);
      throw error;
    }
    return this.keys.settle(tenantId, uploadRefId, generation);
  }
}

/**
 * A load's side of the rollups: `touch` before removing the upload's rows and after every batch
 * (the stale mark stays fresh, and a bump by anyone else shows as a gap in the generations),
 * `written` with each batch of cost documents stored, `finish` at the end. The rows summed in
 * memory are stored only if the load was the upload's only writer; otherwise they are recomputed.
 */
export class LoadTracker {
  private readonly sums = new RollupAccumulator();
  private generation: number | undefined;
  private alone = true;

  constructor(
    private readonly tenantId: string,
    private readonly uploadRefId: string,
    private readonly keys: RollupKeyRepository,
    private readonly replace: (groups: RollupGroup[], generation: number) => Promise<void>,
  ) {}

  async touch(): Promise<void> {
    const generation = await this.keys.bump(this.tenantId, this.uploadRefId);
    if (this.generation !== undefined && generation !== this.generation + 1) this.alone = false;
    this.generation = generation;
  }

  written(docs: readonly object[], stored: number): void {
    if (stored === docs.length) this.sums.add(docs);
    else this.alone = false;
  }

  async finish(): Promise<void> {
    await this.replace(this.sums.rows(), this.alone && this.generation !== undefined ? this.generation : Number.NaN);
  }
}
