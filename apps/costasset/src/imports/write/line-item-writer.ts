import { Injectable } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { CostassetEnvironment } from '../../costasset.environment';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../../line-items/line-items.repository';
import { ImportViews } from '../../rollups/import-views';
import { LoadTracker, RollupsService } from '../../rollups/rollups.service';
import type { GpdFileKind } from '../read/gpd-layout';
import { BatchWriter } from './batch-writer';
import { UploadRows } from './upload-rows';

/**
 * The write stage of an import: batches of line items into their three collections, the upload's
 * rollups followed while it loads, its rows removed before an attempt or after a failure, and the
 * announcement that line items changed.
 */
@Injectable()
export class LineItemWriter {
  constructor(
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly utilization: UtilizationRepository,
    private readonly rows: UploadRows,
    private readonly rollups: RollupsService,
    private readonly bus: MessageBus,
    private readonly env: CostassetEnvironment,
    private readonly views: ImportViews,
  ) {}

  /** Keeps the upload's rows from every reader until the import publishes them (ImportReplacement). */
  async hide(tenantId: string, refId: string): Promise<void> {
    await this.views.hide(tenantId, refId);
  }

  /** Writes in batches of GPD_BATCH_SIZE; `afterFlush` follows every batch written. */
  batches(tenantId: string, afterFlush: (written: number, kind: GpdFileKind, sent: number) => Promise<void>): BatchWriter {
    const repositories = { cost: this.costs, asset: this.assets, utilization: this.utilization };
    return new BatchWriter(tenantId, this.env.GPD_BATCH_SIZE, repositories, afterFlush);
  }

  /** Follows the load of the upload's rows into its rollups. */
  track(tenantId: string, refId: string): LoadTracker {
    return this.rollups.track(tenantId, refId);
  }

  /** Removes every row of the upload for good (a failed or stopped import): its rollups and the import view follow. */
  async removeAll(tenantId: string, refId: string): Promise<void> {
    await this.rows.remove(tenantId, refId);
  }

  /** Removes what an earlier attempt wrote, once the attempt's LoadTracker has marked the upload. */
  async removeBeforeLoad(tenantId: string, refId: string): Promise<void> {
    await this.rows.removeUntracked(tenantId, refId);
  }

  /** Removes what an earlier attempt of a part job wrote, once its LoadTracker has marked the upload. */
  async removePartBeforeLoad(tenantId: string, refId: string, partIndex: number): Promise<void> {
    await this.rows.removeUntracked(tenantId, refId, { uploadPart: partIndex });
  }

  /** Removes the rows of a part whose job failed or was stopped: the upload's rollups follow. */
  async removePart(tenantId: string, refId: string, partIndex: number): Promise<void> {
    await this.rows.remove(tenantId, refId, { uploadPart: partIndex });
  }

  /**
   * Marks the upload's rollups current once its parts, loaded by separate jobs, stored theirs: when
   * `generation` is the upload's (nobody else wrote meanwhile) and every part summed all its rows;
   * otherwise recomputes them from its rows.
   */
  async settlePartRollups(tenantId: string, refId: string, generation: number, complete: boolean): Promise<void> {
    await this.rollups.settleParts(tenantId, refId, generation, complete);
  }

  /** Tells the other parts (anomalies, summaries, every instance) that line items of these periods changed. */
  async announce(tenantId: string, periods: string[]): Promise<void> {
    await this.bus.publish('costasset.lineitems.changed', { tenantId, periods, reason: 'ingestion' });
  }
}
