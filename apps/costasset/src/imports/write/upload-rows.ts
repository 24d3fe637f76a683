import { Injectable } from '@nestjs/common';
import { combineFilters } from '../../expressions';
import type { RowsRemovedDto } from '../../line-items/dto/rows-removed.dto';
import type { ImportScope } from '../../uploads/schemas/upload.schema';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../../line-items/line-items.repository';
import { ImportViews } from '../../rollups/import-views';
import { RollupsService } from '../../rollups/rollups.service';

export const totalOf = (removed: RowsRemovedDto) => removed.costLineItems + removed.assets + removed.utilization;

/**
 * The line items an upload holds: removed (its rollups marked before, refreshed after) and counted.
 * Once an upload's rows are removed, what the import view hid of it or for it is shown again.
 */
@Injectable()
export class UploadRows {
  constructor(
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly utilization: UtilizationRepository,
    private readonly rollups: RollupsService,
    private readonly views: ImportViews,
  ) {}

  /** Removes the upload's rows matching `filter` (all of them by default) from the three collections. */
  async remove(tenantId: string, refId: string, filter: Record<string, unknown> = {}): Promise<RowsRemovedDto> {
    await this.rollups.begin(tenantId, [refId]);
    const removed = await this.removeUntracked(tenantId, refId, filter);
    await this.rollups.refresh(tenantId, [refId]);
    await this.views.release(tenantId, [{ uploadRefId: refId }]);
    return removed;
  }

  /** Removes without touching the rollups: for a load whose LoadTracker already marked the upload. */
  async removeUntracked(tenantId: string, refId: string, filter: Record<string, unknown> = {}): Promise<RowsRemovedDto> {
    const scoped = combineFilters({ uploadRefId: refId }, filter);
    const [costLineItems, assets, utilization] = await Promise.all(
      [this.costs, this.assets, this.utilization].map((repository) => repository.deleteMany(tenantId, scoped)),
    );
    return { costLineItems, assets, utilization };
  }

  /**
   * Removes the upload's cost rows in these (provider, billing account, billing period) scopes,
   * `within` a visibility (`null`: everything): one rollup refresh for all of them.
   */
  async removeScopes(
    tenantId: string,
    refId: string,
    scopes: readonly ImportScope[],
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

  /** Cost rows the upload still holds (matching `filter`). */
  costRows(tenantId: string, refId: string, filter: Record<string, unknown> = {}): Promise<number> {
    return this.costs.count(tenantId, { ...filter, uploadRefId: refId });
  }
}
