import { Transform } from 'node:stream';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Client } from 'minio';
import { CostassetEnvironment } from '../costasset.environment';
import { GPD_ENRICH_JOB, EnrichPayload } from '../gpd/gpd.constants';
import { GpdUploadRepository } from '../gpd/gpd.repository';
import { RejectedRow } from '../gpd/schemas/gpd-upload.schema';
import { JobContext, JobHandler, PermanentJobError } from '../jobs/job-handler';
import { JobsService } from '../jobs/jobs.service';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import { MessageBus } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { DiscoveryGate } from './discovery-gate';
import { EnrichmentReferenceData } from './enrichment-reference-data';
import { GpdArchive, GpdPlan, readPlan } from './gpd-plan';
import { GpdDataFile } from './gpd-layout';
import { BatchWriter } from './batch-writer';
import { readCsvRows } from './csv-rows';
import { checkAssetRow, checkCostRow, checkUtilizationRow, FileContext } from './row-validator';

const MAX_REPORTED_ERRORS = 100;

interface Counts {
  rowsRead: number;
  /** Not stored on the upload: only the job result carries it. */
  databaseMs?: number;
  rowsWritten: number;
  rowsRejected: number;
  errors: RejectedRow[];
}

/**
 * The `gpd.enrich` job. Each attempt first removes every row of the upload, so a retry or a
 * redelivery after a crash replaces rows instead of duplicating them. Structural errors
 * (layout, metadata, required columns, unreadable CSV) fail the file with nothing written;
 * row errors reject the row, are reported, and the rest is written.
 */
@Injectable()
export class EnrichmentHandler implements JobHandler<EnrichPayload>, OnModuleInit {
  readonly progressUnit = 'bytes' as const;
  /** Members enrich the uploads they submit (POST /gpd/enrich) and follow or stop those jobs. */
  readonly access = 'member' as const;

  constructor(
    private readonly jobs: JobsService,
    private readonly uploads: GpdUploadRepository,
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly utilization: UtilizationRepository,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly reference: EnrichmentReferenceData,
    private readonly gate: DiscoveryGate,
    private readonly bus: MessageBus,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.jobs.register(GPD_ENRICH_JOB, this);
  }

  async run(context: JobContext<EnrichPayload>): Promise<Record<string, unknown>> {
    const { tenantId } = context;
    const upload = await this.uploads.findOne(tenantId, { refId: context.payload.refId });
    if (!upload || upload.status === 'cleaned') throw new PermanentJobError('the upload no longer exists');
    await this.uploads.updateOne(
      tenantId,
      { refId: upload.refId },
      { $set: { status: 'enriching', rowsRead: 0, rowsWritten: 0, rowsRejected: 0, errors: [] } },
    );
    const archive = await GpdArchive.open(this.store, this.env.S3_BUCKET, upload.objectKey, this.env.GPD_MAX_FILE_BYTES);
    try {
      const plan = await readPlan(archive, upload.providerName);
      await this.gate.assertIngestible(tenantId, upload.providerName, plan.metadata.providerCode);
      const [conversion, metadata] = await Promise.all([
        this.reference.conversion(tenantId),
        this.reference.metadata(tenantId, upload.providerName),
      ]);
      await this.removeRows(tenantId, upload.refId);
      const counts = await this.load(context, archive, plan, (file) => ({
        uploadRefId: upload.refId,
        providerName: upload.providerName,
        period: file.period,
        billingAccountId: file.billingAccountId,
        assetAccountId: file.assetAccountId,
        conversion,
        metadata,
      }));
      // a cleanup during the run wins: the upload stays `cleaned`
      const { databaseMs, ...uploadCounts } = counts;
      this.metrics.ingestionRows('gpd', { read: counts.rowsRead, written: counts.rowsWritten, rejected: counts.rowsRejected });
      await this.uploads.updateOne(tenantId, { refId: upload.refId, status: 'enriching' }, { $set: { status: 'enriched', ...uploadCounts } });
      const periods = [...new Set(plan.files.map(({ file }) => file.period))];
      await this.bus.publish('costasset.lineitems.changed', { tenantId, periods, reason: 'ingestion' });
      return { ...uploadCounts, databaseMs: Math.round(databaseMs ?? 0), currency: conversion.corporateCurrency, providerCode: plan.metadata.providerCode };
    } catch (error) {
      if (error instanceof PermanentJobError)
        await this.failUpload(
          tenantId,
          upload.refId,
          (error.details.errors as RejectedRow[]) ?? [{ file: '', line: 0, reason: error.message }],
        );
      throw error;
    } finally {
      archive.close();
    }
  }

  async onFailed(job: { tenantId: string; payload: EnrichPayload }, reason: string): Promise<void> {
    await this.failUpload(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason }]);
  }

  async onTerminated(job: { tenantId: string; payload: EnrichPayload }): Promise<void> {
    await this.failUpload(job.tenantId, job.payload.refId, [{ file: '', line: 0, reason: 'enrichment terminated on request' }]);
  }

  /** Nothing half-written: a failed upload keeps no rows. */
  private async failUpload(tenantId: string, refId: string, errors: RejectedRow[]): Promise<void> {
    await this.removeRows(tenantId, refId);
    await this.uploads.updateOne(
      tenantId,
      { refId, status: 'enriching' },
      { $set: { status: 'failed', rowsWritten: 0, errors: errors.slice(0, MAX_REPORTED_ERRORS) } },
    );
  }

  private async removeRows(tenantId: string, refId: string): Promise<void> {
    await Promise.all(
      [this.costs, this.assets, this.utilization].map((repository) => repository.deleteMany(tenantId, { uploadRefId: refId })),
    );
  }

  private async load(
    context: JobContext<EnrichPayload>,
    archive: GpdArchive,
    plan: GpdPlan,
    contextOf: (file: GpdDataFile) => FileContext,
  ): Promise<Counts> {
    const counts: Counts = { rowsRead: 0, rowsWritten: 0, rowsRejected: 0, errors: [] };
    let bytesDone = 0;
    const report = () => context.progress(bytesDone, plan.totalBytes);
    const writer = new BatchWriter(
      context.tenantId,
      this.env.GPD_BATCH_SIZE,
      { cost: this.costs, asset: this.assets, utilization: this.utilization },
      async (written) => {
        counts.rowsWritten += written;
        await report();
      },
    );
    await report();
    for (const { file, entry } of plan.files) {
      const fileContext = contextOf(file);
      const check = file.kind === 'cost' ? checkCostRow : file.kind === 'asset' ? checkAssetRow : checkUtilizationRow;
      const reject = (line: number, reason: string) => {
        counts.rowsRejected++;
        if (counts.errors.length < MAX_REPORTED_ERRORS) counts.errors.push({ file: file.name, line, reason });
      };
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytesDone += chunk.length;
          done(null, chunk);
        },
      });
      for await (const { row, line, problem } of readCsvRows((await archive.open(entry)).pipe(counter), file.name)) {
        counts.rowsRead++;
        if (problem) {
          reject(line, problem);
          continue;
        }
        const checked = check(row, fileContext);
        if (checked.ok) await writer.add(file.kind, checked.doc);
        else reject(line, checked.reason);
      }
    }
    await writer.flushAll();
    counts.databaseMs = writer.databaseMs;
    return counts;
  }
}
