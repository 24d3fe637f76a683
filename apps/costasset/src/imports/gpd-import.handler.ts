import { JOB_TYPES } from '../jobs/job-types';
import { Transform } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { setSpanAttributes } from '@lib/tracing';
import { CostassetEnvironment } from '../costasset.environment';
import { gpdFileLimits } from '../object-store/upload-urls';
import { GpdImportPayload } from '../uploads/import-payloads';
import { UploadsRepository } from '../uploads/uploads.repository';
import { RejectedRow } from '../uploads/schemas/upload.schema';
import { UploadOutcomes } from '../uploads/upload-outcomes';
import { UploadAccess } from '../uploads/upload-access';
import { ImportVisibility } from '../uploads/import-visibility';
import { IngestCounts, IngestReport, MAX_REPORTED_ROWS, problem } from './report/ingest-report';
import { planHeader, RULES } from './map/cost-row';
import { CompletedWithErrors, JobContext, JobHandler, PermanentJobError, JobHandlerFor } from '../jobs/job-handler';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import { MessageBus } from '@lib/messaging';
import { LoadTracker, RollupsService } from '../rollups/rollups.service';
import { DiscoveryGate } from './rules/discovery-gate';
import { ImportReferenceData } from './map/reference-data';
import { GpdArchive, GpdPlan, readPlan } from './read/gpd-plan';
import { GpdDataFile } from './read/gpd-layout';
import { BatchWriter } from './write/batch-writer';
import { readCsvRows } from './read/csv-rows';
import { checkAssetRow, checkCostRow, checkUtilizationRow, FileContext, Row } from './rules/row-validator';

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
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly utilization: UtilizationRepository,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly reference: ImportReferenceData,
    private readonly gate: DiscoveryGate,
    private readonly bus: MessageBus,
    private readonly outcomes: UploadOutcomes,
    private readonly rollups: RollupsService,
    private readonly access: UploadAccess,
  ) {}

  async run(context: JobContext<GpdImportPayload>): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { tenantId } = context;
    setSpanAttributes({ 'corelite.upload.id': context.payload.refId });
    const upload = await this.uploads.findOne(tenantId, { refId: context.payload.refId });
    if (!upload || upload.status === 'cleaned') throw new PermanentJobError('the upload no longer exists');
    await this.uploads.updateOne(
      tenantId,
      { refId: upload.refId },
      { $set: { status: 'enriching', rowsRead: 0, rowsWritten: 0, rowsRejected: 0, errors: [] } },
    );
    const archive = await GpdArchive.open(this.store, this.env.S3_BUCKET, upload.objectKey, gpdFileLimits(upload, this.env));
    try {
      const plan = await readPlan(archive, upload.providerName as string);
      await this.gate.assertIngestible(tenantId, upload.providerName as string, plan.metadata.providerCode);
      const visibility = await this.access.importVisibility(tenantId, upload);
      for (const { file } of plan.files) visibility.checkLayout(upload.providerName as string, file.billingAccountId, file.period);
      if (visibility.refused) throw visibility.refusal();
      const [conversion, metadata] = await Promise.all([
        this.reference.conversion(tenantId),
        this.reference.metadata(tenantId, upload.providerName as string),
      ]);
      const rollups = this.rollups.track(tenantId, upload.refId);
      await rollups.touch();
      await this.removeRows(tenantId, upload.refId);
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
      const replaced = upload.source ? await this.outcomes.supersedeSameSource(tenantId, upload, visibility.filter) : [];
      await rollups.finish();
      await this.bus.publish('costasset.lineitems.changed', { tenantId, periods, reason: 'ingestion' });
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
          error.details as Partial<IngestCounts>,
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
  private async failUpload(tenantId: string, refId: string, errors: RejectedRow[], counts: Partial<IngestCounts> = {}): Promise<void> {
    await this.removeRowsForGood(tenantId, refId);
    await this.outcomes.fail(tenantId, refId, errors.slice(0, MAX_REPORTED_ROWS), counts);
  }

  private async removeRows(tenantId: string, refId: string): Promise<void> {
    await Promise.all(
      [this.costs, this.assets, this.utilization].map((repository) => repository.deleteMany(tenantId, { uploadRefId: refId })),
    );
  }

  /** Rows removed for good (the upload failed or was stopped): its rollups follow. */
  private async removeRowsForGood(tenantId: string, refId: string): Promise<void> {
    await this.rollups.begin(tenantId, [refId]);
    await this.removeRows(tenantId, refId);
    await this.rollups.refresh(tenantId, [refId]);
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
    const writer = new BatchWriter(
      context.tenantId,
      this.env.GPD_BATCH_SIZE,
      { cost: this.costs, asset: this.assets, utilization: this.utilization },
      async (written, kind, docs) => {
        report.rowsWritten += written;
        if (kind === 'cost') rollups.written(docs, written);
        // keeps the upload's stale mark fresh, so that a long load is never taken for a crash left behind
        await rollups.touch();
        await progress();
      },
    );
    await progress();
    for (const { file, entry } of plan.files) {
      const fileContext = contextOf(file);
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytesDone += chunk.length;
          done(null, chunk);
        },
      });
      let header: ReturnType<typeof planHeader> | undefined;
      for await (const { row, line, problem: fieldProblem } of readCsvRows((await archive.open(entry)).pipe(counter), file.name)) {
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
        if (!report.record(source.file, source.line, checked.problems) && checked.ok && visibility.admits(checked.doc))
          await writer.add('cost', checked.doc);
      }
    }
    await writer.flushAll();
    return { counts: report.counts(), databaseMs: writer.databaseMs };
  }
}
