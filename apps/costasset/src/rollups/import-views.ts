import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '@lib/core';
import { TenantRepository } from '@lib/persistence';
import { COST_IMPORT_VIEW, CostImportView, HiddenEntry, HiddenRows, SCOPE_FIELDS, UploadScope } from './schemas/cost-import-view.schema';

export type { HiddenEntry, HiddenRows, UploadScope } from './schemas/cost-import-view.schema';

/** How many times a change of the view is tried again after another change came between its read and its write. */
export const MAX_VIEW_ATTEMPTS = 50;

/** The view as a reader takes it: what is hidden, at which version. */
export interface ImportView {
  version: number;
  hidden: HiddenEntry[];
}

const EMPTY_VIEW: ImportView = { version: 0, hidden: [] };

const isScope = (rows: HiddenRows): rows is UploadScope => SCOPE_FIELDS.some((field) => field in rows);

/** The entry of rows: a whole upload, or exactly one scope of it (a missing scope field is null, as a filter matches it). */
function entryOf(rows: HiddenRows, since: Date, by?: string): HiddenEntry {
  const entry: HiddenEntry = isScope(rows)
    ? {
        uploadRefId: rows.uploadRefId,
        providerName: rows.providerName ?? null,
        billingAccountId: rows.billingAccountId ?? null,
        billingPeriod: rows.billingPeriod ?? null,
        whole: false,
        since,
      }
    : { uploadRefId: rows.uploadRefId, whole: true, since };
  if (by !== undefined) entry.by = by;
  return entry;
}

/** Which rows an entry hides, as a comparable key (`since` and `by` left out). */
export function hiddenKey(rows: HiddenRows | HiddenEntry): string {
  if ('whole' in rows ? rows.whole : !isScope(rows)) return JSON.stringify([rows.uploadRefId]);
  const scope = rows as UploadScope;
  return JSON.stringify([scope.uploadRefId, scope.providerName ?? null, scope.billingAccountId ?? null, scope.billingPeriod ?? null]);
}

/** The uploads hidden whole: no row of theirs is read, so their stale rollup marks do not matter to readers. */
export function hiddenUploads(hidden: readonly HiddenEntry[]): Set<string> {
  return new Set(hidden.filter((entry) => entry.whole).map((entry) => entry.uploadRefId));
}

/**
 * The filter leaving out every hidden row: `{}` when nothing is hidden, else one `$nor` holding
 * the uploads hidden whole (`uploadRefId: { $in }`) and each hidden scope, the billing periods of
 * one upload, provider and billing account together. It reads only `uploadRefId`, `providerName`,
 * `billingAccountId` and `billingPeriod`, which line items and rollup rows of both levels carry (a
 * missing one is null to the filter on both, as their scope's deletion matches it), so the same
 * filter runs over all three.
 */
export function exclusionOf(hidden: readonly HiddenEntry[]): Record<string, unknown> {
  if (hidden.length === 0) return {};
  const whole = hiddenUploads(hidden);
  const scopes = new Map<string, { scope: Omit<UploadScope, 'billingPeriod'>; periods: Set<string | null> }>();
  for (const entry of hidden) {
    if (entry.whole || whole.has(entry.uploadRefId)) continue;
    const { uploadRefId, providerName = null, billingAccountId = null, billingPeriod = null } = entry as UploadScope;
    const key = JSON.stringify([uploadRefId, providerName, billingAccountId]);
    const group = scopes.get(key) ?? { scope: { uploadRefId, providerName, billingAccountId }, periods: new Set() };
    group.periods.add(billingPeriod);
    scopes.set(key, group);
  }
  const clauses: Record<string, unknown>[] = [];
  if (whole.size > 0) clauses.push({ uploadRefId: whole.size === 1 ? [...whole][0] : { $in: [...whole].sort() } });
  for (const { scope, periods } of scopes.values()) {
    const billingPeriod = periods.size === 1 ? [...periods][0] : { $in: [...periods] };
    clauses.push({ ...scope, billingPeriod });
  }
  return { $nor: clauses };
}

@Injectable()
export class ImportViewRepository extends TenantRepository<CostImportView> {
  constructor(@InjectModel(COST_IMPORT_VIEW) model: Model<CostImportView>) {
    super(model);
  }

  /** The tenant's view: one lookup on the tenant's unique index. */
  async current(tenantId: string): Promise<ImportView> {
    const view = await this.findOne(tenantId, {});
    return view ? { version: view.version ?? 0, hidden: view.hidden ?? [] } : EMPTY_VIEW;
  }

  /**
   * Writes the view's entries if it is still at `version` (a tenant without a view is at 0 and
   * gets one), in one update of the one document; false when another change came first.
   */
  async write(tenantId: string, version: number, hidden: HiddenEntry[]): Promise<boolean> {
    try {
      const update = { $set: { hidden }, $inc: { version: 1 } };
      return (await this.updateOne(tenantId, { version }, update, { upsert: version === 0 })) > 0;
    } catch (error) {
      // two first changes at once: the other one created the view
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }
}

/**
 * The tenant's import view (docs/rollups.md, "What a concurrent reader sees"): the rows no reader
 * may see. An import is hidden whole while it writes (`hide`); its publication (`publish`) shows
 * it and hides the scopes of older uploads it replaces in one update, so a reader sees the older
 * rows or the newer ones, never both nor a part; once those are deleted (and their rollups
 * refreshed) they are released (`release`). Readers apply `exclusionOf(view.hidden)` to every
 * line item and rollup row they read, and take the view once per request.
 */
@Injectable()
export class ImportViews {
  constructor(private readonly views: ImportViewRepository) {}

  /** The view a request reads through (one lookup on an index). */
  current(tenantId: string): Promise<ImportView> {
    return this.views.current(tenantId);
  }

  /** The filter leaving out what is hidden now (`{}` when nothing is). */
  async exclusion(tenantId: string): Promise<Record<string, unknown>> {
    return exclusionOf((await this.current(tenantId)).hidden);
  }

  /** When an import attempt starts, before it removes or writes any row: none of the upload's rows is read until `publish`. */
  hide(tenantId: string, uploadRefId: string, now = new Date()): Promise<void> {
    return this.change(tenantId, (hidden) => {
      const entry = entryOf({ uploadRefId }, now);
      return hidden.some((other) => hiddenKey(other) === hiddenKey(entry)) ? hidden : [...hidden, entry];
    });
  }

  /**
   * When an import has written all its rows, before anything it replaces is deleted: in one update,
   * the upload is shown and `replaced` (scopes of older uploads, or whole uploads, its rows take the
   * place of) is hidden. `release` them once deleted. What an earlier attempt of the same upload
   * published and never released goes: a redo after a crash finds again every replaced scope whose
   * rows are not deleted yet, so one it does not name again holds no row any more.
   */
  publish(tenantId: string, uploadRefId: string, replaced: readonly HiddenRows[], now = new Date()): Promise<void> {
    const shown = hiddenKey({ uploadRefId });
    const added = replaced.map((rows) => entryOf(rows, now, uploadRefId));
    return this.change(tenantId, (hidden) => {
      const kept = hidden.filter((entry) => hiddenKey(entry) !== shown && entry.by !== uploadRefId);
      const keys = new Set(kept.map(hiddenKey));
      for (const entry of added) {
        if (keys.has(hiddenKey(entry))) continue;
        keys.add(hiddenKey(entry));
        kept.push(entry);
      }
      return kept;
    });
  }

  /**
   * When hidden rows are gone: a replaced scope once deleted and its upload's rollups refreshed, a
   * failed or removed import once its rows are deleted. A whole upload releases every entry of that
   * upload (its scopes too) and what it hid for replacement (an attempt that published, then failed,
   * shows again the rows it did not delete); a scope releases that scope only.
   */
  release(tenantId: string, entries: readonly HiddenRows[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const wholeUploads = new Set(entries.filter((rows) => !isScope(rows)).map((rows) => rows.uploadRefId));
    const scopes = new Set(entries.filter(isScope).map(hiddenKey));
    return this.change(tenantId, (hidden) =>
      hidden.filter(
        (entry) =>
          !wholeUploads.has(entry.uploadRefId) &&
          !(entry.by !== undefined && wholeUploads.has(entry.by)) &&
          (entry.whole || !scopes.has(hiddenKey(entry))),
      ),
    );
  }

  /** Read, change, write if nobody wrote meanwhile (the version), else again: one atomic update of the one document. */
  private async change(tenantId: string, next: (hidden: HiddenEntry[]) => HiddenEntry[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const view = await this.views.current(tenantId);
      const hidden = next([...view.hidden]);
      if (sameEntries(hidden, view.hidden)) return;
      if (await this.views.write(tenantId, view.version, hidden)) return;
      if (attempt >= MAX_VIEW_ATTEMPTS) throw new Error(`the import view of tenant ${tenantId} kept changing: ${attempt} attempts`);
      // another import changed the view between the read and the write: a short, random pause spreads the retries
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
    }
  }
}

function sameEntries(a: readonly HiddenEntry[], b: readonly HiddenEntry[]): boolean {
  return a.length === b.length && a.every((entry, index) => hiddenKey(entry) === hiddenKey(b[index]));
}
