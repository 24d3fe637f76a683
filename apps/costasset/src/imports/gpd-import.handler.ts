import { JOB_TYPES } from '../jobs/job-types';
import { Injectable } from '@nestjs/common';
import { setSpanAttributes } from '@lib/tracing';
import { GpdImportPayload } from '../uploads/import-payloads';
import { FailureCounts, UploadsRepository } from '../uploads/uploads.repository';
import { RejectedRow } from '../uploads/schemas/upload.schema';
import { UploadAccess } from '../uploads/upload-access';
import { ImportVisibility } from '../uploads/import-visibility';
import { IngestCounts, IngestReport, MAX_REPORTED_ROWS, problem } from './report/ingest-report';
import { ImportOutcomes } from './report/import-outcomes';
import { planHeader, RULES } from './map/cost-row';
import { CompletedWithErrors, JobContext, JobHandler, PermanentJobError, JobHandlerFor } from '../jobs/job-handler';
import { LoadTracker } from '../rollups/rollups.service';
import { ImportReferenceData } from './map/reference-data';
import { GpdArchive, GpdPlan, readPlan } from './read/gpd-plan';
import { GpdDataFile } from './read/gpd-layout';
import { ImportSources } from './read/import-sources';
import { byteCounter, piped } from './read/object-stream';
import { readCsvRows } from './read/csv-rows';
import { checkAssetRow, checkCostRow, checkUtilizationRow, FileContext, Row } from './rules/row-validator';
import { ImportReplacement } from './write/import-replacement';
import { LineItemWriter } from './write/line-item-writer';

/**
 * The `gpd.enrich` job. Each attempt first removes every row of the upload, so a retry or a
 * redelivery after a crash replaces rows instead of duplicating them. Structural errors
 * (layout, metadata, required columns, unreadable CSV) fail the file with nothing written;
 * row errors reject the row, are reported (every problem of the row, counts per rule), and the
 * rest is written. Writing none of N rows fails the job; rejecting more than
 * INGEST_REJECTED_ROWS_THRESHOLD_PERCENT ends it `completed_with_errors`. The enrichment runs
 * within the visibility of whoever asked for it: an account folder outside it refuses the file
 * before any row is written; a row outside (for a visibility its folder cannot decide) refuses it
 * as it is read. Either way nothing is kept.
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.gpdImport)
export class GpdImportHandler implements JobHandler<GpdImportPayload> {
  readonly progressUnit = 'bytes' as const;

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly sources: ImportSources,
    private readonly reference: ImportReferenceData,
    private readonly writer: LineItemWriter,
    private readonly replacement: ImportReplacement,
    private readonly outcomes: ImportOutcomes,
    private readonly access: UploadAccess,
  ) {}

  async run(context: JobContext<GpdImportPayload>): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { tenantId } = context;
    setSpanAttributes({ 'corelite.upload.id': context.payload.refId });
    const upload = await this.uploads.findOne(tenantId, { refId: context.payload.refId });
    const gone = () => new PermanentJobError('the upload no longer exists');
    if (!upload || upload.status === 'cleaned') throw gone();
    if (!(await this.uploads.startAttempt(tenantId, upload))) throw gone();
    await this.writer.hide(tenantId, upload.refId);
    const archive = await this.sources.openGpdArchive(upload);
    try {
      const plan = await readPlan(archive, upload.providerName as string);
      await this.reference.assertIngestible(tenantId, upload.providerName as string, plan.metadata.providerCode);
      const visibility = await this.access.importVisibility(tenantId, upload);
      for (const { file } of plan.files) visibility.checkLayout(upload.providerName as string, file.billingAccountId, file.period);
      if (visibility.refused) throw visibility.refusal();
      const [conversion, metadata] = await Promise.all([
        this.reference.conversion(tenantId),
        this.reference.metadata(tenantId, upload.providerName as string),
      ]);
      const rollups = this.writer.track(tenantId, upload.refId);
      await rollups.touch();
      await this.writer.removeBeforeLoad(tenantId, upload.refId);
      const { counts, databaseMs } = await this.load(rollups, context, archive, plan, visibility, (file) => ({
        uploadRefId: upload.refId,
        providerName: upload.providerName as string,
        period: file.period,
        billingAccountId: file.billingAccountId,
        assetAccountId: file.assetAccountId,
        conversion,
        metadata,
        sourceFile: file.name,
      }));
      if (visibility.refused) throw visibility.refusal({ ...counts });
      const outcome = await this.outcomes.finish(tenantId, upload, counts);
      const periods = [...new Set(plan.files.map(({ file }) => file.period))];
      await rollups.finish();
      const replaced = await this.replacement.sameSource(tenantId, upload, visibility.filter);
      await this.writer.announce(tenantId, periods);
      const result = {
        ...counts,
        databaseMs: Math.round(databaseMs),
        rollupMs: Math.round(rollups.maintenanceMs),
        currency: conversion.corporateCurrency,
        providerCode: plan.metadata.providerCode,
        ...(replaced.length ? { replaced } : {}),
      };
      return outcome === 'completed_with_errors' ? new CompletedWithErrors(result) : result;
    } catch (error) {
      if (error instanceof PermanentJobError)
        await this.failUpload(
          tenantId,
          upload.refId,
          (error.details.errors as RejectedRow[]) ?? [{ file: '', line: 0, reason: error.message }],
          error.details as FailureCounts,
        );
      throw error;
    } finally {
      archive.close();
    }
  }

  async onFailed(job: { tenantId: string; payload: GpdImportPayload }, reason: string): Promise<void> {
    await this.failUpload(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason }]);
  }

  async onTerminated(job: { tenantId: string; payload: GpdImportPayload }): Promise<void> {
    await this.failUpload(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason: 'enrichment terminated on request' }]);
  }

  /** Nothing half-written: a failed upload keeps no rows (its report is kept). */
  private async failUpload(tenantId: string, refId: string, errors: RejectedRow[], counts: FailureCounts = {}): Promise<void> {
    await this.writer.removeAll(tenantId, refId);
    await this.uploads.markFailed(tenantId, refId, errors.slice(0, MAX_REPORTED_ROWS), counts);
  }

  private async load(
    rollups: LoadTracker,
    context: JobContext<GpdImportPayload>,
    archive: GpdArchive,
    plan: GpdPlan,
    visibility: ImportVisibility,
    contextOf: (file: GpdDataFile) => FileContext,
  ): Promise<{ counts: IngestCounts; databaseMs: number }> {
    const report = new IngestReport();
    let bytesDone = 0;
    const progress = () => context.progress(bytesDone, plan.totalBytes, { rows: report.rowsRead });
    const writer = this.writer.batches(context.tenantId, async (written, kind, sent) => {
      report.rowsWritten += written;
      if (kind === 'cost') rollups.stored(sent, written);
      // keeps the upload's stale mark fresh, so that a long load is never taken for a crash left behind
      await rollups.touch();
      await progress();
    });
    await progress();
    for (const { file, entry } of plan.files) {
      const fileContext = contextOf(file);
      const counter = byteCounter((bytes) => (bytesDone += bytes));
      let header: ReturnType<typeof planHeader> | undefined;
      for await (const { row, line, problem: fieldProblem } of readCsvRows(piped(await archive.open(entry), counter), file.name)) {
        report.rowsRead++;
        if (fieldProblem) {
          report.record(file.name, line, [problem(RULES.fieldCount, fieldProblem)]);
          continue;
        }
        if (file.kind !== 'cost') {
          const checked = file.kind === 'asset' ? checkAssetRow(row as Row, fileContext) : checkUtilizationRow(row as Row, fileContext);
          if (!report.record(file.name, line, checked.problems) && checked.ok && !visibility.refused)
            await writer.add(file.kind, checked.doc);
          continue;
        }
        header ??= planHeader(Object.keys(row), undefined);
        const checked = checkCostRow(row, fileContext, line, header);
        const source = checked.source ?? { file: file.name, line };
        if (!report.record(source.file, source.line, checked.problems) && checked.ok && visibility.admits(checked.doc)) {
          rollups.add(checked.doc);
          await writer.add('cost', checked.doc);
        }
      }
    }
    await writer.flushAll();
    return { counts: report.counts(), databaseMs: writer.databaseMs };
  }
}
