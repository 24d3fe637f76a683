import { Injectable } from '@nestjs/common';
import { inSpan, setSpanAttributes } from '@lib/tracing';
import { CostassetEnvironment } from '../costasset.environment';
import type { CurrencyConversion } from '../currency/currency-converter';
import {
  AwaitChildren,
  ChildOutcome,
  CompletedWithErrors,
  JobContext,
  JobHandler,
  JobHandlerFor,
  PermanentJobError,
} from '../jobs/job-handler';
import { JOB_TYPES } from '../jobs/job-types';
import { FocusImportPayload } from '../uploads/import-payloads';
import { UploadAccess } from '../uploads/upload-access';
import { UploadsRepository } from '../uploads/uploads.repository';
import type { Upload, UploadPart } from '../uploads/schemas/upload.schema';
import { FocusLoad, FocusLoader } from './focus-loader';
import type { FocusPartHandoff } from './focus-import-part.handler';
import { ImportReferenceData } from './map/reference-data';
import { ImportSources } from './read/import-sources';
import { ImportOutcomes } from './report/import-outcomes';
import { IngestReport, problem } from './report/ingest-report';
import { overlappingParts, overlapReason, PartSketches, PARTS_OVERLAP_RULE, partsOverlapRefusal } from './rules/part-overlap';
import { ImportReplacement } from './write/import-replacement';
import { ImportScopes } from './write/import-scopes';
import { LineItemWriter } from './write/line-item-writer';

const MAX_STORED_SCOPES = 10_000;

/** How the rows got into the rollups: summed while loading (one job), or recomputed once the parts are in. */
interface RollupsStep {
  finish(): Promise<void>;
  readonly maintenanceMs: number;
}

/**
 * The `focus.import` job: reads every file of a FOCUS upload, streaming (CSV, CSV.gz, Parquet),
 * detects each file's version, maps its columns (renamed and deprecated ones included), checks
 * every row with the shared rules, writes line items split by provider, then lets the newest
 * import of each (provider, billing account, billing period) hold its rows. Each attempt first
 * removes the upload's rows, so a retry or a redelivery replaces them. The import runs within the
 * visibility of whoever asked for it: a row outside refuses the whole import. Parts of one upload
 * that hold the same rows (two snapshots of one period) refuse it too (rules/part-overlap).
 *
 * An upload of FOCUS_PART_JOBS_MIN_PARTS parts or more is loaded part by part, each part a
 * `focus.import-part` job that any instance takes; this job waits meanwhile, then, resumed with
 * what the parts handed over, compares them, takes the rollup rows the parts stored as the upload's
 * (recomputed if anyone else wrote meanwhile) and publishes it exactly as one job would (the rows
 * stay hidden until then).
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.focusImport)
export class FocusImportHandler implements JobHandler<FocusImportPayload> {
  readonly progressUnit = 'bytes' as const;
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly loader: FocusLoader,
    private readonly sources: ImportSources,
    private readonly reference: ImportReferenceData,
    private readonly writer: LineItemWriter,
    private readonly replacement: ImportReplacement,
    private readonly outcomes: ImportOutcomes,
    private readonly access: UploadAccess,
    private readonly env: CostassetEnvironment,
  ) {}

  async run(context: JobContext<FocusImportPayload>): Promise<Record<string, unknown> | CompletedWithErrors | AwaitChildren> {
    const { tenantId } = context;
    setSpanAttributes({ 'corelite.upload.id': context.payload.refId });
    const upload = await this.uploads.findOne(tenantId, { refId: context.payload.refId });
    const gone = () => new PermanentJobError('the upload no longer exists');
    if (!upload || upload.status === 'cleaned' || upload.format !== 'focus') throw gone();
    try {
      if (context.children) return await this.completeParts(tenantId, upload, context.children);
      if (!(await this.uploads.startAttempt(tenantId, upload))) throw gone();
      const conversion = await this.reference.conversion(tenantId);
      await this.writer.removeAll(tenantId, upload.refId);
      await this.writer.hide(tenantId, upload.refId);
      const rollups = this.writer.track(tenantId, upload.refId);
      await rollups.touch();
      const parts = (upload.parts ?? []).map((part) => ({ ...part, rowsRead: 0, rowsWritten: 0, rowsRejected: 0 }));
      const minParts = this.env.FOCUS_PART_JOBS_MIN_PARTS;
      if (minParts > 0 && parts.length >= minParts) return await this.spread(context, upload, parts, rollups.lastGeneration ?? 0);
      const visibility = await this.access.importVisibility(tenantId, upload);
      const loaded = await this.loader.load({
        tenantId,
        upload,
        parts,
        conversion,
        visibility,
        rollups,
        progress: context.progress,
        sketch: parts.length > 1,
      });
      if (visibility.refused) throw visibility.refusal({ ...loaded.report.counts(), parts });
      return await this.complete(tenantId, upload, { ...loaded, parts }, conversion, visibility.filter, rollups);
    } catch (error) {
      if (error instanceof PermanentJobError) await this.loader.fail(tenantId, upload.refId, error);
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

  /** One `focus.import-part` job per part; every part must be there before any is read. */
  private async spread(
    context: JobContext<FocusImportPayload>,
    upload: Upload,
    parts: UploadPart[],
    generation: number,
  ): Promise<AwaitChildren> {
    for (const part of parts) await this.sources.statPart(part);
    await context.progress(
      0,
      parts.reduce((sum, part) => sum + (part.sizeBytes ?? 0), 0),
      { rows: 0 },
    );
    return new AwaitChildren(
      JOB_TYPES.focusImportPart,
      parts.map((_part, partIndex) => ({ refId: upload.refId, partIndex, generation })),
    );
  }

  /** Resumed once every part job succeeded: their reports, scopes and sketches as one load. */
  private async completeParts(
    tenantId: string,
    upload: Upload,
    children: ChildOutcome[],
  ): Promise<Record<string, unknown> | CompletedWithErrors> {
    const handoffs = children.map((child) => child.handoff as unknown as FocusPartHandoff);
    const scopes = new ImportScopes();
    for (const handoff of handoffs) for (const scope of handoff.scopes) scopes.add(scope);
    const loaded = {
      report: IngestReport.merge(handoffs.map((handoff) => handoff.counts)),
      scopes,
      sketches: handoffs.map((handoff) => PartSketches.fromHandoff(handoff.sketches)),
      databaseMs: handoffs.reduce((sum, handoff) => sum + handoff.databaseMs, 0),
      parts: handoffs.map((handoff) => handoff.part),
    };
    const conversion = await this.reference.conversion(tenantId);
    const visibility = await this.access.importVisibility(tenantId, upload);
    // the parts stored their rollup rows: current unless someone else wrote meanwhile (then recomputed)
    const generation = handoffs.reduce((sum, handoff) => sum + handoff.rollups.bumps, handoffs[0]?.rollups.generation ?? 0);
    const complete = handoffs.every((handoff) => handoff.rollups.complete);
    let maintenanceMs = 0;
    const rollups: RollupsStep = {
      finish: async () => {
        const started = performance.now();
        await this.writer.settlePartRollups(tenantId, upload.refId, generation, complete);
        maintenanceMs = performance.now() - started;
      },
      get maintenanceMs() {
        return maintenanceMs;
      },
    };
    return this.complete(tenantId, upload, loaded, conversion, visibility.filter, rollups);
  }

  /** Compares the parts, then stores the rollups, replaces older imports of the same scopes and reports. */
  private async complete(
    tenantId: string,
    upload: Upload,
    loaded: FocusLoad & { parts: UploadPart[] },
    conversion: CurrencyConversion,
    visibilityFilter: Record<string, unknown> | null,
    rollups: RollupsStep,
  ): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { report, parts, databaseMs } = loaded;
    const overlaps = overlappingParts(loaded.sketches);
    for (const overlap of overlaps) report.fileFinding(overlap.part, problem(PARTS_OVERLAP_RULE, overlapReason(overlap)));
    const counts = report.counts();
    // two snapshots of one period in one upload would count its cost twice: refused as a whole
    if (overlaps.length) throw partsOverlapRefusal(overlaps, { ...counts, parts });
    this.outcomes.assertWritten(counts, { parts });
    const scopes = loaded.scopes.values();
    await this.uploads.recordScopes(tenantId, upload.refId, scopes.slice(0, MAX_STORED_SCOPES));
    // its rollups are stored before it is shown, so that readers stay on the rollups
    await inSpan('rollups finish', {}, () => rollups.finish());
    const { replaced, outdated, scopes: kept } = await this.replacement.apply(tenantId, upload, scopes, visibilityFilter);
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
  }
}
