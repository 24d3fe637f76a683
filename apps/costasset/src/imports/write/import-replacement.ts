import { Injectable } from '@nestjs/common';
import { UploadsRepository } from '../../uploads/uploads.repository';
import { Upload, ImportScope, IMPORTING_STATUSES, LOADED_STATUSES, Replacement } from '../../uploads/schemas/upload.schema';
import type { UploadScope } from '../../rollups/import-views';
import { ImportViews } from '../../rollups/import-views';
import { UploadRows } from './upload-rows';

export const scopeKey = (scope: Pick<ImportScope, 'providerName' | 'billingAccountId' | 'billingPeriod'>) =>
  JSON.stringify([scope.providerName, scope.billingAccountId, scope.billingPeriod]);

interface Overlap {
  other: Upload;
  overlap: ImportScope[];
}

const scopesOf = (uploadRefId: string, scopes: readonly ImportScope[]): UploadScope[] =>
  scopes.map(({ providerName, billingAccountId, billingPeriod }) => ({ uploadRefId, providerName, billingAccountId, billingPeriod }));

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
 * (an older upload left with no cost row becomes `superseded`), and gives up its own rows in the
 * scopes a newer import already finished (or is replacing) — so two imports of one month that
 * finish in any order leave exactly the newer one's rows, and one still running is never
 * removed before it finished. An extension flow's GPD file replaces the files earlier flows made
 * from the same raw upload (`sameSource`).
 */
@Injectable()
export class ImportReplacement {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly rows: UploadRows,
    private readonly views: ImportViews,
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
    await this.uploads.markReplacing(tenantId, upload.refId);
    const mine = new Map(scopes.map((scope) => [scopeKey(scope), scope]));
    const requestedAt = (candidate: Pick<Upload, 'importRequestedAt' | 'createdAt'>) =>
      new Date(candidate.importRequestedAt ?? candidate.createdAt ?? 0).getTime();
    const others = await this.uploads.find(tenantId, {
      format: 'focus',
      refId: { $ne: upload.refId },
      status: { $in: [...LOADED_STATUSES, ...IMPORTING_STATUSES] },
      'scopes.0': { $exists: true },
    });
    const older: Overlap[] = [];
    const newer: Overlap[] = [];
    for (const other of others) {
      const overlap = (other.scopes ?? []).filter((scope) => mine.has(scopeKey(scope)));
      if (overlap.length === 0) continue;
      const otherIsOlder =
        requestedAt(other) < requestedAt(upload) || (requestedAt(other) === requestedAt(upload) && other.refId < upload.refId);
      if (otherIsOlder && LOADED_STATUSES.includes(other.status)) older.push({ other, overlap });
      else if (!otherIsOlder && (LOADED_STATUSES.includes(other.status) || other.replacing)) newer.push({ other, overlap });
    }
    for (const { overlap } of newer) for (const scope of overlap) mine.delete(scopeKey(scope));
    // readers see the older rows until this instant and this import's rows from it, never both
    const olderRows = older.map(({ other, overlap }) => scopesOf(other.refId, overlap));
    const outdatedRows = newer.map(({ overlap }) => scopesOf(upload.refId, overlap));
    await this.views.publish(tenantId, upload.refId, [...olderRows, ...outdatedRows].flat());
    const replaced: Replacement[] = [];
    for (const [index, { other, overlap }] of older.entries()) {
      replaced.push({ uploadRefId: other.refId, rowsRemoved: await this.rows.removeScopes(tenantId, other.refId, overlap, within) });
      await this.supersede(tenantId, other, upload.refId, within === null ? [] : overlap, mine);
      await this.views.release(tenantId, olderRows[index]);
    }
    const outdated: ReplacementResult['outdated'] = [];
    for (const [index, { other, overlap }] of newer.entries()) {
      outdated.push({ uploadRefId: other.refId, rowsRemoved: await this.rows.removeScopes(tenantId, upload.refId, overlap) });
      await this.views.release(tenantId, outdatedRows[index]);
    }
    return { replaced, outdated, scopes: [...mine.values()] };
  }

  /**
   * Shows a loaded GPD upload, with the extension flows' rule: the uploads earlier flows made from
   * the same raw upload lose their rows (`within` the new import's visibility, `null`: everything).
   */
  async sameSource(tenantId: string, upload: Upload, within: Record<string, unknown> | null = null): Promise<Replacement[]> {
    const older = upload.source
      ? await this.uploads.find(tenantId, {
          refId: { $ne: upload.refId },
          'source.providerCode': upload.source.providerCode,
          'source.rawFile': upload.source.rawFile,
          status: { $in: LOADED_STATUSES },
        })
      : [];
    // shown, and the files it replaces hidden, in one update; each is shown again once its rows are removed
    await this.views.publish(
      tenantId,
      upload.refId,
      older.map((previous) => ({ uploadRefId: previous.refId })),
    );
    const replaced: Replacement[] = [];
    for (const previous of older) {
      const removed = await this.rows.remove(tenantId, previous.refId, within ?? {});
      replaced.push({ uploadRefId: previous.refId, rowsRemoved: removed.costLineItems + removed.assets + removed.utilization });
      await this.uploads.supersede(tenantId, previous.refId, upload.refId, { rows: await this.rows.costRows(tenantId, previous.refId) });
    }
    if (replaced.length) await this.uploads.recordReplaced(tenantId, upload.refId, replaced);
    return replaced;
  }

  /**
   * The older upload keeps the scopes this import does not hold, and those of `maybeLeft` where
   * rows outside the importer's visibility remain; it is `superseded` once it holds no cost row.
   */
  private async supersede(
    tenantId: string,
    other: Upload,
    by: string,
    maybeLeft: ImportScope[],
    mine: Map<string, ImportScope>,
  ): Promise<void> {
    const left = (other.scopes ?? []).filter((scope) => !mine.has(scopeKey(scope)));
    for (const scope of maybeLeft) {
      const { providerName, billingAccountId, billingPeriod } = scope;
      const rows = await this.rows.costRows(tenantId, other.refId, { providerName, billingAccountId, billingPeriod });
      if (rows > 0) left.push({ ...scope, rows });
    }
    const rows = await this.rows.costRows(tenantId, other.refId);
    await this.uploads.supersede(tenantId, other.refId, by, { rows, scopes: left });
  }
}
