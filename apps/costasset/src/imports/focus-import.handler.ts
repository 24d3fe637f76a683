import { JOB_TYPES } from '../jobs/job-types';
import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { MessageBus } from '@lib/messaging';
import { inSpan, setSpanAttributes } from '@lib/tracing';
import { CostassetEnvironment } from '../costasset.environment';
import { focusPartRefusal } from '../object-store/upload-urls';
import { BatchWriter } from './write/batch-writer';
import { ImportReferenceData } from './map/reference-data';
import { FocusImportPayload } from '../uploads/import-payloads';
import { UploadsRepository } from '../uploads/uploads.repository';
import { Upload, ImportScope, RejectedRow, UploadPart } from '../uploads/schemas/upload.schema';
import { UploadOutcomes } from '../uploads/upload-outcomes';
import { UploadAccess } from '../uploads/upload-access';
import { ImportVisibility } from '../uploads/import-visibility';
import { CurrencyConversion } from '../currency/currency-converter';
import { missingRequiredColumns, planHeader, providerOfRow, readCostRow, RULES } from './map/cost-row';
import { detectVersion, FocusVersion, parseVersion } from './map/focus-columns';
import { IngestCounts, IngestReport, MAX_REPORTED_ROWS, outcomeOf, problem } from './report/ingest-report';
import { CompletedWithErrors, JobContext, JobHandler, PermanentJobError, JobHandlerFor } from '../jobs/job-handler';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import { LoadTracker, RollupsService } from '../rollups/rollups.service';
import { ProviderMetadataSnapshot } from '../provider-metadata/provider-metadata.lookup';
import { CoreSettingsClient } from '../feature-flags/core-settings.client';
import { ImportReplacement, scopeKey } from './write/import-replacement';
import type { FocusFile } from './read/focus-file';
import { openFocusFile } from './read/focus-file-reader';

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
 * visibility of whoever asked for it: a row outside refuses the whole import.
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.focusImport)
export class FocusImportHandler implements JobHandler<FocusImportPayload> {
  readonly progressUnit = 'bytes' as const;
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly utilization: UtilizationRepository,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly reference: ImportReferenceData,
    private readonly settings: CoreSettingsClient,
    private readonly outcomes: UploadOutcomes,
    private readonly replacement: ImportReplacement,
    private readonly bus: MessageBus,
    private readonly rollups: RollupsService,
    private readonly access: UploadAccess,
  ) {}

  async run(context: JobContext<FocusImportPayload>): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { tenantId } = context;
    setSpanAttributes({ 'corelite.upload.id': context.payload.refId });
    const upload = await this.uploads.findOne(tenantId, { refId: context.payload.refId });
    if (!upload || upload.status === 'cleaned' || upload.format !== 'focus') throw new PermanentJobError('the upload no longer exists');
    await this.uploads.updateOne(
      tenantId,
      { refId: upload.refId },
      {
        $set: { status: 'enriching', rowsRead: 0, rowsWritten: 0, rowsRejected: 0, errors: [], replacing: false },
        $unset: { scopes: 1, replaced: 1 },
      },
    );
    try {
      const conversion = await this.reference.conversion(tenantId);
      await this.outcomes.removeRowsOf(tenantId, upload.refId);
      const rollups = this.rollups.track(tenantId, upload.refId);
      await rollups.touch();
      const visibility = await this.access.importVisibility(tenantId, upload);
      const loaded = await this.load(rollups, context, upload, conversion, visibility);
      const { counts, parts, scopes, databaseMs } = loaded;
      if (visibility.refused) throw visibility.refusal({ ...counts, parts });
      if (outcomeOf(counts, this.env.INGEST_REJECTED_ROWS_THRESHOLD_PERCENT) === 'failed') {
        const reason = `no row could be written: ${counts.rowsRead} read, ${counts.rowsRejected} rejected`;
        throw new PermanentJobError(reason, {
          ...counts,
          parts,
          errors: counts.errors.length ? counts.errors : [{ file: '', line: 0, reason }],
        });
      }
      await this.uploads.updateOne(tenantId, { refId: upload.refId }, { $set: { scopes: scopes.slice(0, MAX_STORED_SCOPES) } });
      const { replaced, outdated, scopes: kept } = await this.replacement.apply(tenantId, upload, scopes, visibility.filter);
      await inSpan('rollups finish', {}, () => rollups.finish());
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
      await this.bus.publish('costasset.lineitems.changed', { tenantId, periods, reason: 'ingestion' });
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
    await this.outcomes.removeRowsOf(job.tenantId, job.payload.refId);
    await this.outcomes.fail(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason }]);
  }

  async onTerminated(job: { tenantId: string; payload: FocusImportPayload }): Promise<void> {
    await this.outcomes.removeRowsOf(job.tenantId, job.payload.refId);
    await this.outcomes.fail(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason: 'import terminated on request' }]);
  }

  /** Nothing half-written: a failed import keeps no rows, but keeps its report. */
  private async failUpload(tenantId: string, refId: string, error: PermanentJobError): Promise<void> {
    await this.outcomes.removeRowsOf(tenantId, refId);
    const errors = (error.details.errors as RejectedRow[] | undefined) ?? [{ file: '', line: 0, reason: error.message }];
    await this.outcomes.fail(tenantId, refId, errors.slice(0, MAX_REPORTED_ROWS), error.details as Partial<IngestCounts>);
  }

  private async load(
    rollups: LoadTracker,
    context: JobContext<FocusImportPayload>,
    upload: Upload,
    conversion: CurrencyConversion,
    visibility: ImportVisibility,
  ): Promise<{ counts: IngestCounts; parts: UploadPart[]; scopes: ImportScope[]; databaseMs: number }> {
    const { tenantId } = context;
    const report = new IngestReport();
    const parts = (upload.parts ?? []).map((part) => ({ ...part, rowsRead: 0, rowsWritten: 0, rowsRejected: 0 }));
    for (const part of parts) await this.stat(part);
    const totalBytes = parts.reduce((sum, part) => sum + (part.sizeBytes ?? 0), 0);
    let bytesBefore = 0;
    let current: FocusFile | undefined;
    const progress = () => context.progress(bytesBefore + (current?.bytesRead() ?? 0), totalBytes, { rows: report.rowsRead });
    const writer = new BatchWriter(
      tenantId,
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
    const scopes = new Map<string, ImportScope>();
    const providers = new ProviderCache(tenantId, this.reference, this.settings);
    await progress();
    for (const part of parts) {
      const file = await inSpan('open file', { attributes: { 'corelite.file.format': part.format } }, () => this.open(part));
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
      for await (const { row, line, problem: fieldProblem } of file.rows) {
        report.rowsRead++;
        if (report.rowsRead % PROGRESS_ROWS === 0) await progress();
        if (fieldProblem) {
          report.record(part.name, line, [problem(RULES.fieldCount, fieldProblem)]);
          continue;
        }
        const provider = providerOfRow(row, plan);
        const refusal = provider ? await providers.prepare(provider) : undefined;
        if (refusal) {
          report.record(part.name, line, [problem('PROVIDER_NOT_SUPPORTED', refusal)]);
          continue;
        }
        const result = readCostRow(row, plan, line, ctx);
        if (report.record(part.name, line, result.problems, result.id) || !result.doc) continue;
        if (!visibility.admits(result.doc)) continue;
        const { providerName, billingAccountId, billingPeriod } = result.doc;
        const key = scopeKey({ providerName, billingAccountId, billingPeriod });
        const scope = scopes.get(key) ?? { providerName, billingAccountId, billingPeriod, rows: 0 };
        scope.rows++;
        scopes.set(key, scope);
        await writer.add('cost', result.doc);
      }
      bytesBefore += file.bytesRead();
      current = undefined;
      part.rowsRead = report.rowsRead - before.read;
      part.rowsRejected = report.rowsRejected - before.rejected;
      part.rowsWritten = part.rowsRead - part.rowsRejected;
    }
    await writer.flushAll();
    await progress();
    return { counts: report.counts(), parts, scopes: [...scopes.values()], databaseMs: writer.databaseMs };
  }

  private async stat(part: UploadPart): Promise<void> {
    const stat = await this.store.statObject(this.env.S3_BUCKET, part.objectKey).catch((error: { code?: string }) => {
      if (error.code === 'NotFound' || error.code === 'NoSuchKey')
        throw new PermanentJobError(`${part.name} is no longer in the object store`);
      throw error;
    });
    const refusal = focusPartRefusal(stat.size, part, this.env);
    if (refusal) throw new PermanentJobError(`${part.name} ${refusal}`, { errors: [{ file: part.name, line: 0, reason: refusal }] });
    part.sizeBytes = stat.size;
  }

  private open(part: UploadPart): Promise<FocusFile> {
    const { S3_BUCKET, FOCUS_PARQUET_MEMORY_CAP_BYTES } = this.env;
    return openFocusFile(
      this.store,
      S3_BUCKET,
      part.objectKey,
      part.sizeBytes ?? 0,
      part.name,
      part.format,
      FOCUS_PARQUET_MEMORY_CAP_BYTES,
    );
  }
}

/**
 * Provider metadata and the COMMON_DISCOVERY gate, looked up once per provider of the file: a
 * provider the gate refuses has its rows rejected (`PROVIDER_NOT_SUPPORTED`), the others import.
 */
class ProviderCache {
  private readonly snapshots = new Map<string, ProviderMetadataSnapshot>();
  private readonly refusals = new Map<string, string | undefined>();

  constructor(
    private readonly tenantId: string,
    private readonly reference: ImportReferenceData,
    private readonly settings: CoreSettingsClient,
  ) {}

  readonly metadataOf = (providerName: string): ProviderMetadataSnapshot =>
    this.snapshots.get(providerName) ?? { categoriesByAssetType: new Map(), locationsByRegion: new Map() };

  async prepare(providerName: string): Promise<string | undefined> {
    if (this.refusals.has(providerName)) return this.refusals.get(providerName);
    let refusal: string | undefined;
    if (await this.settings.isEnabled(this.tenantId, 'COMMON_DISCOVERY')) {
      const supported = await this.settings.listValue(this.tenantId, 'SUPPORTED_CD_PROVIDERS');
      if (!supported.includes(providerName.toLowerCase()))
        refusal = `COMMON_DISCOVERY is on and provider "${providerName}" is not in SUPPORTED_CD_PROVIDERS: its rows are not imported`;
    }
    if (!refusal) this.snapshots.set(providerName, await this.reference.metadata(this.tenantId, providerName));
    this.refusals.set(providerName, refusal);
    return refusal;
  }
}
