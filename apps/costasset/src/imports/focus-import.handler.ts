import { JOB_TYPES } from '../jobs/job-types';
import { Injectable } from '@nestjs/common';
import { inSpan, setSpanAttributes } from '@lib/tracing';
import { ImportReferenceData } from './map/reference-data';
import { FocusImportPayload } from '../uploads/import-payloads';
import { FailureCounts, UploadsRepository } from '../uploads/uploads.repository';
import { Upload, ImportScope, RejectedRow, UploadPart } from '../uploads/schemas/upload.schema';
import { UploadAccess } from '../uploads/upload-access';
import { ImportVisibility } from '../uploads/import-visibility';
import { CurrencyConversion } from '../currency/currency-converter';
import { costRowReader, missingRequiredColumns, planHeader, providerOfCells, RULES } from './map/cost-row';
import { detectVersion, FocusVersion, parseVersion } from './map/focus-columns';
import { IngestCounts, IngestReport, MAX_REPORTED_ROWS, problem } from './report/ingest-report';
import { ImportOutcomes } from './report/import-outcomes';
import { CompletedWithErrors, JobContext, JobHandler, PermanentJobError, JobHandlerFor } from '../jobs/job-handler';
import { LoadTracker } from '../rollups/rollups.service';
import { ImportReplacement } from './write/import-replacement';
import { ImportScopes } from './write/import-scopes';
import { LineItemWriter } from './write/line-item-writer';
import type { FocusFile } from './read/focus-file';
import { ImportSources } from './read/import-sources';
import { overlappingParts, PARTS_OVERLAP_RULE, PartSketches, PartsOverlap, overlapReason, partsOverlapRefusal } from './rules/part-overlap';

/** Values a FOCUS row cannot be stored without (the rest of the mandatory columns are conformance warnings). */
export const FOCUS_REQUIRED_VALUES = ['ChargePeriodStart', 'BilledCost', 'BillingCurrency', 'BillingAccountId', 'ProviderName'];
const MAX_STORED_SCOPES = 10_000;
const PROGRESS_ROWS = 10_000;

/** The version of a file: declared by the client, else named by its metadata, else shown by its columns. */
function versionOf(file: FocusFile, declared: FocusVersion | undefined): Pick<UploadPart, 'focusVersion' | 'versionSource'> {
  if (declared) return { focusVersion: declared, versionSource: 'declared' };
  const entry = Object.entries(file.metadata).find(([key]) => /^focus[ _-]?version$/i.test(key));
  const fromMetadata = parseVersion(entry?.[1]);
  if (fromMetadata) return { focusVersion: fromMetadata, versionSource: 'metadata' };
  return { focusVersion: detectVersion(file.header), versionSource: 'columns' };
}

/**
 * The `focus.import` job: reads every file of a FOCUS upload, streaming (CSV, CSV.gz, Parquet),
 * detects each file's version, maps its columns (renamed and deprecated ones included), checks
 * every row with the shared rules, writes line items split by provider, then lets the newest
 * import of each (provider, billing account, billing period) hold its rows. Each attempt first
 * removes the upload's rows, so a retry or a redelivery replaces them. The import runs within the
 * visibility of whoever asked for it: a row outside refuses the whole import. Parts of one upload
 * that hold the same rows (two snapshots of one period) refuse it too (rules/part-overlap).
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.focusImport)
export class FocusImportHandler implements JobHandler<FocusImportPayload> {
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

  async run(context: JobContext<FocusImportPayload>): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { tenantId } = context;
    setSpanAttributes({ 'corelite.upload.id': context.payload.refId });
    const upload = await this.uploads.findOne(tenantId, { refId: context.payload.refId });
    const gone = () => new PermanentJobError('the upload no longer exists');
    if (!upload || upload.status === 'cleaned' || upload.format !== 'focus') throw gone();
    if (!(await this.uploads.startAttempt(tenantId, upload))) throw gone();
    try {
      const conversion = await this.reference.conversion(tenantId);
      await this.writer.removeAll(tenantId, upload.refId);
      await this.writer.hide(tenantId, upload.refId);
      const rollups = this.writer.track(tenantId, upload.refId);
      await rollups.touch();
      const visibility = await this.access.importVisibility(tenantId, upload);
      const loaded = await this.load(rollups, context, upload, conversion, visibility);
      const { counts, parts, scopes, databaseMs, overlaps } = loaded;
      if (visibility.refused) throw visibility.refusal({ ...counts, parts });
      // two snapshots of one period in one upload would count its cost twice: refused as a whole
      if (overlaps.length) throw partsOverlapRefusal(overlaps, { ...counts, parts });
      this.outcomes.assertWritten(counts, { parts });
      await this.uploads.recordScopes(tenantId, upload.refId, scopes.slice(0, MAX_STORED_SCOPES));
      // its rollups are stored before it is shown, so that readers stay on the rollups
      await inSpan('rollups finish', {}, () => rollups.finish());
      const { replaced, outdated, scopes: kept } = await this.replacement.apply(tenantId, upload, scopes, visibility.filter);
      const providers = [...new Set(scopes.map((scope) => scope.providerName))].sort();
      const outcome = await this.outcomes.finish(tenantId, upload, counts, {
        parts,
        providers,
        scopes: kept.slice(0, MAX_STORED_SCOPES),
        replaced,
        replacing: false,
        ...(outdated.length ? { supersededBy: outdated.map((entry) => entry.uploadRefId) } : {}),
      });
      const periods = [...new Set(scopes.map((scope) => scope.billingPeriod))];
      await this.writer.announce(tenantId, periods);
      const result = {
        ...counts,
        parts,
        providers,
        scopes: kept.length,
        replaced,
        outdated,
        databaseMs: Math.round(databaseMs),
        rollupMs: Math.round(rollups.maintenanceMs),
        currency: conversion.corporateCurrency,
      };
      return outcome === 'completed_with_errors' ? new CompletedWithErrors(result) : result;
    } catch (error) {
      if (error instanceof PermanentJobError) await this.failUpload(tenantId, upload.refId, error);
      throw error;
    }
  }

  async onFailed(job: { tenantId: string; payload: FocusImportPayload }, reason: string): Promise<void> {
    await this.writer.removeAll(job.tenantId, job.payload.refId);
    await this.uploads.markFailed(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason }]);
  }

  async onTerminated(job: { tenantId: string; payload: FocusImportPayload }): Promise<void> {
    await this.writer.removeAll(job.tenantId, job.payload.refId);
    await this.uploads.markFailed(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason: 'import terminated on request' }]);
  }

  /** Nothing half-written: a failed import keeps no rows, but keeps its report. */
  private async failUpload(tenantId: string, refId: string, error: PermanentJobError): Promise<void> {
    await this.writer.removeAll(tenantId, refId);
    const errors = (error.details.errors as RejectedRow[] | undefined) ?? [{ file: '', line: 0, reason: error.message }];
    await this.uploads.markFailed(tenantId, refId, errors.slice(0, MAX_REPORTED_ROWS), error.details as FailureCounts);
  }

  private async load(
    rollups: LoadTracker,
    context: JobContext<FocusImportPayload>,
    upload: Upload,
    conversion: CurrencyConversion,
    visibility: ImportVisibility,
  ): Promise<{ counts: IngestCounts; parts: UploadPart[]; scopes: ImportScope[]; databaseMs: number; overlaps: PartsOverlap[] }> {
    const { tenantId } = context;
    const report = new IngestReport();
    const parts = (upload.parts ?? []).map((part) => ({ ...part, rowsRead: 0, rowsWritten: 0, rowsRejected: 0 }));
    for (const part of parts) await this.sources.statPart(part);
    const totalBytes = parts.reduce((sum, part) => sum + (part.sizeBytes ?? 0), 0);
    let bytesBefore = 0;
    let current: FocusFile | undefined;
    const progress = () => context.progress(bytesBefore + (current?.bytesRead() ?? 0), totalBytes, { rows: report.rowsRead });
    const writer = this.writer.batches(tenantId, async (written, kind, docs) => {
      report.rowsWritten += written;
      if (kind === 'cost') rollups.written(docs, written);
      // keeps the upload's stale mark fresh, so that a long load is never taken for a crash left behind
      await rollups.touch();
      await progress();
    });
    const scopes = new ImportScopes();
    const providers = this.reference.providers(tenantId);
    // the rows of each part, sketched per scope, when there are parts to compare
    const sketches: PartSketches[] = [];
    await progress();
    for (const part of parts) {
      const file = await inSpan('open file', { attributes: { 'corelite.file.format': part.format } }, () =>
        this.sources.openFocusFile(part),
      );
      current = file;
      Object.assign(part, versionOf(file, parseVersion(upload.declaredVersion)));
      const version = part.focusVersion as FocusVersion;
      const plan = planHeader(file.header, version);
      const missing = missingRequiredColumns(plan, FOCUS_REQUIRED_VALUES);
      if (missing.length > 0) {
        const reason = `missing required column(s): ${missing.join(', ')}`;
        throw new PermanentJobError(`${part.name} ${reason}`, { errors: [{ file: part.name, line: 0, reason }], parts });
      }
      for (const name of plan.missingMandatory)
        report.fileFinding(part.name, problem(RULES.mandatoryColumn, `${name} is mandatory in FOCUS ${version} and missing`, 'warning'));
      if (plan.unknown.length)
        report.fileFinding(
          part.name,
          problem(RULES.unknownColumn, `not FOCUS ${version} columns (ignored): ${plan.unknown.join(', ')}`, 'warning'),
        );
      const before = { read: report.rowsRead, rejected: report.rowsRejected };
      const ctx = {
        uploadRefId: upload.refId,
        conversion,
        metadataOf: providers.metadataOf,
        required: FOCUS_REQUIRED_VALUES,
        conformance: true,
        focusVersion: version,
        sourceFile: part.name,
      };
      const readRow = costRowReader(plan);
      const sketch = parts.length > 1 ? new PartSketches(part.name, file.header) : undefined;
      if (sketch) sketches.push(sketch);
      for await (const { rows, lines, problems } of file.batches) {
        for (let index = 0; index < rows.length; index++) {
          const cells = rows[index];
          const line = lines[index];
          report.rowsRead++;
          if (report.rowsRead % PROGRESS_ROWS === 0) await progress();
          const fieldProblem = problems?.[index];
          if (fieldProblem !== undefined) {
            report.record(part.name, line, [problem(RULES.fieldCount, fieldProblem)]);
            continue;
          }
          const provider = providerOfCells(cells, plan);
          const refusal =
            provider === undefined
              ? undefined
              : providers.known(provider)
                ? providers.refusal(provider)
                : await providers.prepare(provider);
          if (refusal) {
            report.record(part.name, line, [problem('PROVIDER_NOT_SUPPORTED', refusal)]);
            continue;
          }
          const result = readRow(cells, line, ctx);
          if (report.record(part.name, line, result.problems, result.id) || !result.doc) continue;
          if (!visibility.admits(result.doc)) continue;
          scopes.count(result.doc.providerName, result.doc.billingAccountId, result.doc.billingPeriod);
          sketch?.add(cells, result.doc.providerName, result.doc.billingAccountId, result.doc.billingPeriod);
          const flushing = writer.add('cost', result.doc);
          if (flushing) await flushing;
        }
      }
      bytesBefore += file.bytesRead();
      current = undefined;
      part.rowsRead = report.rowsRead - before.read;
      part.rowsRejected = report.rowsRejected - before.rejected;
      part.rowsWritten = part.rowsRead - part.rowsRejected;
    }
    const overlaps = overlappingParts(sketches);
    for (const overlap of overlaps) report.fileFinding(overlap.part, problem(PARTS_OVERLAP_RULE, overlapReason(overlap)));
    await writer.flushAll();
    await progress();
    return { counts: report.counts(), parts, scopes: scopes.values(), databaseMs: writer.databaseMs, overlaps };
  }
}
