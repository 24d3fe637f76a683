import { Injectable } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { CostassetEnvironment } from '../costasset.environment';
import { UploadsRepository } from '../uploads/uploads.repository';
import { FINAL_JOB_STATUSES } from '../jobs/schemas/job.schema';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import { RowsRemovedDto } from '../line-items/dto/rows-removed.dto';
import { RollupsService } from '../rollups/rollups.service';
import { EnrichedCleanupResult, OutdatedCleanupResult, TemporaryCleanupResult } from './dto/housekeeping.dto';
import { JobRecordStore, ReportOutputStore } from './housekeeping.repositories';
import { daysBefore, periodMonthsBefore } from './retention';

/**
 * Housekeeping (docs/interface.md#administration-admin). Each operation is one `deleteMany` per collection on indexed fields, done
 * in the request so the answer can say what was removed.
 */
@Injectable()
export class HousekeepingService {
  constructor(
    private readonly env: CostassetEnvironment,
    private readonly bus: MessageBus,
    private readonly lineItems: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly utilization: UtilizationRepository,
    private readonly uploads: UploadsRepository,
    private readonly reportOutputs: ReportOutputStore,
    private readonly jobRecords: JobRecordStore,
    private readonly rollups: RollupsService,
  ) {}

  /** "Temporary" = saved report outputs past REPORT_OUTPUT_RETENTION_DAYS and finished job records past JOB_RETENTION_DAYS. */
  async temporary(tenantId: string, now = new Date()): Promise<TemporaryCleanupResult> {
    const reportOutputsBefore = daysBefore(now, this.env.REPORT_OUTPUT_RETENTION_DAYS);
    const jobsBefore = daysBefore(now, this.env.JOB_RETENTION_DAYS);
    const [reportOutputs, jobs] = await Promise.all([
      this.reportOutputs.deleteMany(tenantId, { generatedAt: { $lt: reportOutputsBefore } }),
      this.jobRecords.deleteMany(tenantId, { status: { $in: FINAL_JOB_STATUSES }, finishedAt: { $lt: jobsBefore } }),
    ]);
    return {
      removed: { reportOutputs, jobs },
      reportOutputsBefore: reportOutputsBefore.toISOString(),
      jobsBefore: jobsBefore.toISOString(),
    };
  }

  /** Removes all enriched data of the tenant; uploads whose rows are gone become `cleaned`. */
  async enriched(tenantId: string): Promise<EnrichedCleanupResult> {
    const periods = await this.periods(tenantId, {});
    const removed = await this.removeData(tenantId, {});
    const gpdUploadsCleaned = await this.uploads.markAllCleaned(tenantId);
    await this.changed(tenantId, periods, removed);
    return { removed, gpdUploadsCleaned };
  }

  /** Removes rows whose period is before the month DATA_RETENTION_MONTHS before the current one. */
  async outdated(tenantId: string, now = new Date()): Promise<OutdatedCleanupResult> {
    const cutoffPeriod = periodMonthsBefore(now, this.env.DATA_RETENTION_MONTHS);
    const filter = { period: { $lt: cutoffPeriod } };
    const periods = await this.periods(tenantId, filter);
    const removed = await this.removeData(tenantId, filter);
    await this.changed(tenantId, periods, removed);
    return { removed, cutoffPeriod, retentionMonths: this.env.DATA_RETENTION_MONTHS };
  }

  private async removeData(tenantId: string, filter: Record<string, unknown>): Promise<RowsRemovedDto> {
    const [costLineItems, assets, utilization] = await this.rollups.around(tenantId, filter, () =>
      Promise.all([
        this.lineItems.deleteMany(tenantId, filter),
        this.assets.deleteMany(tenantId, filter),
        this.utilization.deleteMany(tenantId, filter),
      ]),
    );
    return { costLineItems, assets, utilization };
  }

  private async periods(tenantId: string, filter: Record<string, unknown>): Promise<string[]> {
    const rows = await this.lineItems.aggregate<{ _id: string }>(tenantId, [{ $match: filter }, { $group: { _id: '$period' } }]);
    return rows.map((row) => row._id).filter(Boolean);
  }

  private async changed(tenantId: string, periods: string[], removed: RowsRemovedDto): Promise<void> {
    if (removed.costLineItems + removed.assets + removed.utilization === 0) return;
    await this.bus.publish('costasset.lineitems.changed', { tenantId, periods, reason: 'housekeeping' });
  }
}
