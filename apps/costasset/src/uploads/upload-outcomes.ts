import { Injectable } from '@nestjs/common';
import { combineFilters } from '../expressions';
import { Metrics } from '@lib/metrics';
import { CostassetEnvironment } from '../costasset.environment';
import { IngestCounts, outcomeOf, RejectedRow } from '../imports/report/ingest-report';
import { PermanentJobError } from '../jobs/job-handler';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import { RollupsService } from '../rollups/rollups.service';
import { UploadsRepository } from './uploads.repository';
import { Upload, LOADED_STATUSES, Replacement } from './schemas/upload.schema';

/**
 * How an enrichment or an import ends on its upload record, one rule for both: writing none of
 * the rows read fails (nothing kept), rejecting more than INGEST_REJECTED_ROWS_THRESHOLD_PERCENT
 * ends `enriched_with_errors` (job `completed_with_errors`), anything else `enriched`.
 */
@Injectable()
export class UploadOutcomes {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly env: CostassetEnvironment,
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly utilization: UtilizationRepository,
    private readonly rollups: RollupsService,
    private readonly metrics: Metrics,
  ) {}

  /** Records the counts; throws a PermanentJobError (the job fails) when no row was written. */
  async finish(
    tenantId: string,
    upload: Pick<Upload, 'refId' | 'format'>,
    counts: IngestCounts,
    extra: Partial<Upload> = {},
  ): Promise<'succeeded' | 'completed_with_errors'> {
    this.metrics.ingestionRows(upload.format ?? 'gpd', {
      read: counts.rowsRead,
      written: counts.rowsWritten,
      rejected: counts.rowsRejected,
    });
    const outcome = outcomeOf(counts, this.env.INGEST_REJECTED_ROWS_THRESHOLD_PERCENT);
    if (outcome === 'failed') {
      const reason = `no row could be written: ${counts.rowsRead} read, ${counts.rowsRejected} rejected`;
      const errors: RejectedRow[] = counts.errors.length > 0 ? counts.errors : [{ file: '', line: 0, reason }];
      throw new PermanentJobError(reason, { ...counts, ...extra, errors });
    }
    const { rules, ...rowCounts } = counts;
    // a cleanup during the run wins: the upload stays `cleaned`
    await this.uploads.updateOne(
      tenantId,
      { refId: upload.refId, status: 'enriching' },
      { $set: { status: outcome === 'succeeded' ? 'enriched' : 'enriched_with_errors', ...rowCounts, conformance: { rules }, ...extra } },
    );
    return outcome;
  }

  async fail(tenantId: string, refId: string, errors: RejectedRow[], counts: Partial<IngestCounts> & Partial<Upload> = {}): Promise<void> {
    const { rules, rowsRead, rowsRejected, parts } = counts;
    await this.uploads.updateOne(
      tenantId,
      { refId, status: 'enriching' },
      {
        $set: {
          status: 'failed',
          rowsWritten: 0,
          errors,
          ...(rowsRead !== undefined ? { rowsRead, rowsRejected } : {}),
          ...(rules ? { conformance: { rules } } : {}),
          ...(parts ? { parts } : {}),
        },
      },
    );
  }

  /**
   * An extension flow's GPD file replaces the files earlier flows made from the same raw upload:
   * their rows are removed once this one is enriched, and they become `superseded`.
   */
  /**
   * `within`: the visibility the new import ran within (`null`: everything). An older upload loses
   * only its rows within it, and is `superseded` once it holds no cost row any more.
   */
  async supersedeSameSource(tenantId: string, upload: Upload, within: Record<string, unknown> | null = null): Promise<Replacement[]> {
    if (!upload.source) return [];
    const older = await this.uploads.find(tenantId, {
      refId: { $ne: upload.refId },
      'source.providerCode': upload.source.providerCode,
      'source.rawFile': upload.source.rawFile,
      status: { $in: LOADED_STATUSES },
    });
    const replaced: Replacement[] = [];
    for (const previous of older) {
      replaced.push({ uploadRefId: previous.refId, rowsRemoved: await this.removeRowsOf(tenantId, previous.refId, within ?? {}) });
      const emptied = within === null || (await this.costs.count(tenantId, { uploadRefId: previous.refId })) === 0;
      const change = emptied ? { status: 'superseded', supersededBy: [upload.refId] } : { supersededBy: [upload.refId] };
      await this.uploads.updateOne(tenantId, { refId: previous.refId }, { $set: change });
    }
    if (replaced.length) await this.uploads.updateOne(tenantId, { refId: upload.refId }, { $set: { replaced } });
    return replaced;
  }

  async removeRowsOf(tenantId: string, refId: string, filter: Record<string, unknown> = {}): Promise<number> {
    const scoped = combineFilters({ uploadRefId: refId }, filter);
    await this.rollups.begin(tenantId, [refId]);
    const counts = await Promise.all(
      [this.costs, this.assets, this.utilization].map((repository) => repository.deleteMany(tenantId, scoped)),
    );
    await this.rollups.refresh(tenantId, [refId]);
    return counts.reduce((sum, count) => sum + count, 0);
  }
}
