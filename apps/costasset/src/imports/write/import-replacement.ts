import { Injectable } from '@nestjs/common';
import { UploadsRepository } from '../../uploads/uploads.repository';
import { Upload, ImportScope, LOADED_STATUSES, Replacement } from '../../uploads/schemas/upload.schema';
import { CostLineItemRepository } from '../../line-items/line-items.repository';
import { RollupsService } from '../../rollups/rollups.service';
import { combineFilters } from '../../expressions';

export const scopeKey = (scope: Pick<ImportScope, 'providerName' | 'billingAccountId' | 'billingPeriod'>) =>
  JSON.stringify([scope.providerName, scope.billingAccountId, scope.billingPeriod]);

export interface ReplacementResult {
  /** Rows of older imports this import replaced. */
  replaced: Replacement[];
  /** This import's own scopes that a newer, finished import already holds (its rows there were removed). */
  outdated: { uploadRefId: string; rowsRemoved: number }[];
  scopes: ImportScope[];
}

/**
 * "A newer export of a month replaces the older one": the rows of one (provider, billing account,
 * billing period) come from the import asked for last. Run by an import once all its rows are
 * written: it marks itself `replacing`, then removes the rows older imports hold in its scopes
 * (an older upload left with no scope becomes `superseded`), and gives up its own rows in the
 * scopes a newer import already finished (or is replacing) — so two imports of one month that
 * finish in any order leave exactly the newer one's rows, and one still running is never
 * removed before it finished.
 */
@Injectable()
export class ImportReplacement {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly costs: CostLineItemRepository,
    private readonly rollups: RollupsService,
  ) {}

  /**
   * `within`: the importer's visibility (`null`: everything); rows of older imports outside it are
   * never removed, even in a scope this import holds.
   */
  async apply(
    tenantId: string,
    upload: Upload,
    scopes: ImportScope[],
    within: Record<string, unknown> | null = null,
  ): Promise<ReplacementResult> {
    await this.uploads.updateOne(tenantId, { refId: upload.refId }, { $set: { replacing: true } });
    const mine = new Map(scopes.map((scope) => [scopeKey(scope), scope]));
    const requestedAt = (candidate: Pick<Upload, 'importRequestedAt' | 'createdAt'>) =>
      new Date(candidate.importRequestedAt ?? candidate.createdAt ?? 0).getTime();
    const others = await this.uploads.find(tenantId, {
      format: 'focus',
      refId: { $ne: upload.refId },
      status: { $in: [...LOADED_STATUSES, 'enriching'] },
      'scopes.0': { $exists: true },
    });
    const replaced: Replacement[] = [];
    const outdated: ReplacementResult['outdated'] = [];
    for (const other of others) {
      const overlap = (other.scopes ?? []).filter((scope) => mine.has(scopeKey(scope)));
      if (overlap.length === 0) continue;
      const otherIsOlder =
        requestedAt(other) < requestedAt(upload) || (requestedAt(other) === requestedAt(upload) && other.refId < upload.refId);
      if (otherIsOlder && LOADED_STATUSES.includes(other.status)) {
        replaced.push({ uploadRefId: other.refId, rowsRemoved: await this.removeScopes(tenantId, other.refId, overlap, within) });
        const left = (other.scopes ?? []).filter((scope) => !mine.has(scopeKey(scope)));
        await this.uploads.updateOne(
          tenantId,
          { refId: other.refId },
          { $set: { scopes: left, ...(left.length === 0 ? { status: 'superseded' } : {}) }, $addToSet: { supersededBy: upload.refId } },
        );
      } else if (!otherIsOlder && (LOADED_STATUSES.includes(other.status) || other.replacing)) {
        outdated.push({ uploadRefId: other.refId, rowsRemoved: await this.removeScopes(tenantId, upload.refId, overlap) });
        for (const scope of overlap) mine.delete(scopeKey(scope));
      }
    }
    return { replaced, outdated, scopes: [...mine.values()] };
  }

  private async removeScopes(
    tenantId: string,
    refId: string,
    scopes: ImportScope[],
    within: Record<string, unknown> | null = null,
  ): Promise<number> {
    let removed = 0;
    await this.rollups.begin(tenantId, [refId]);
    for (const { providerName, billingAccountId, billingPeriod } of scopes) {
      removed += await this.costs.deleteMany(
        tenantId,
        combineFilters({ uploadRefId: refId, providerName, billingAccountId, billingPeriod }, within),
      );
    }
    await this.rollups.refresh(tenantId, [refId]);
    return removed;
  }
}
