import { Injectable } from '@nestjs/common';
import { Metrics } from '@lib/metrics';
import { CostassetEnvironment } from '../../costasset.environment';
import { PermanentJobError } from '../../jobs/job-handler';
import { ImportedReport, UploadsRepository } from '../../uploads/uploads.repository';
import type { Upload } from '../../uploads/schemas/upload.schema';
import { IngestCounts, outcomeOf, RejectedRow } from './ingest-report';

/**
 * How an import ends, one rule for GPD and FOCUS: writing none of the rows read fails (nothing
 * kept), rejecting more than INGEST_REJECTED_ROWS_THRESHOLD_PERCENT ends `…_with_errors` (job
 * `completed_with_errors`), anything else loaded. Counts the rows in the metrics.
 */
@Injectable()
export class ImportOutcomes {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly env: CostassetEnvironment,
    private readonly metrics: Metrics,
  ) {}

  /** Records the report on the upload; throws a PermanentJobError (the job fails) when no row was written. */
  async finish(
    tenantId: string,
    upload: Pick<Upload, 'refId' | 'format'>,
    counts: IngestCounts,
    extra: ImportedReport = {},
  ): Promise<'succeeded' | 'completed_with_errors'> {
    this.metrics.ingestionRows(upload.format ?? 'gpd', {
      read: counts.rowsRead,
      written: counts.rowsWritten,
      rejected: counts.rowsRejected,
    });
    this.assertWritten(counts, extra);
    const outcome = outcomeOf(counts, this.env.INGEST_REJECTED_ROWS_THRESHOLD_PERCENT);
    const { rules, ...rowCounts } = counts;
    const withErrors = outcome === 'completed_with_errors';
    await this.uploads.markImported(tenantId, upload, withErrors, { ...rowCounts, conformance: { rules }, ...extra });
    return withErrors ? 'completed_with_errors' : 'succeeded';
  }

  /** An import that wrote none of the rows it read fails: its PermanentJobError, with the report in `details`. */
  assertWritten(counts: IngestCounts, details: Record<string, unknown> = {}): void {
    if (outcomeOf(counts, this.env.INGEST_REJECTED_ROWS_THRESHOLD_PERCENT) !== 'failed') return;
    const reason = `no row could be written: ${counts.rowsRead} read, ${counts.rowsRejected} rejected`;
    const errors: RejectedRow[] = counts.errors.length > 0 ? counts.errors : [{ file: '', line: 0, reason }];
    throw new PermanentJobError(reason, { ...counts, ...details, errors });
  }
}
