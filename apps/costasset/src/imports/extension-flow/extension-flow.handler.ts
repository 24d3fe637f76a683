import { JOB_TYPES } from '../../jobs/job-types';
import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { CostassetEnvironment } from '../../costasset.environment';
import { gpdObjectKey } from '../../uploads/upload-keys';
import { GpdRegistrationService } from '../../uploads/gpd/gpd-registration.service';
import { GpdService } from '../../uploads/gpd/gpd.service';
import { SERVICE_IMPORT } from '../../uploads/import-requester';
import { SOURCE_FILE_COLUMN, SOURCE_ROW_COLUMN, RULES } from '../map/cost-row';
import { IngestCounts, IngestReport, outcomeOf, problem } from '../report/ingest-report';
import { CompletedWithErrors, JobContext, JobHandler, PermanentJobError, JobHandlerFor } from '../../jobs/job-handler';
import { BudgetExceededError } from '../../extensions/archive/byte-budget';
import { readExtension } from '../../extensions/manifest/extension-archive';
import { currencyOf, ExtensionManifest, providerNameOf } from '../../extensions/manifest/extension-manifest';
import { statOrNull } from '../../extensions/store/stream-upload';
import { FlowPayload, flowOutputName } from './extension-flow.constants';
import { GpdAssembler } from './gpd-assembler';
import { RowPlacer } from './gpd-placement';
import { readRawRows } from './raw-csv';
import { byteCounter, piped } from '../read/object-stream';
import { matchingRawFiles, RawInputs } from './raw-inputs';
import { DEFAULT_LIMITS, RowMapper } from '../map/row-mapper';

const MAX_COST_FILES = 10_000;
const PROGRESS_ROWS = 5000;

/**
 * The `extension-flow` job: maps the matching expanded raw CSVs of one raw upload, row by row,
 * checks each mapped row with the rules enrichment applies, and writes a GPD zip at
 * `tenants/<tenantId>/gpd/<jobId>/<provider>-extension.zip` (each row keeps its raw file and
 * line in `x_SourceFile` / `x_SourceRow`), registered as a GPD upload whose ref id is the job id.
 * A rerun writes the same key and refreshes the same upload. Progress counts raw bytes, with rows.
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.extensionFlow)
export class ExtensionFlowHandler implements JobHandler<FlowPayload> {
  readonly progressUnit = 'bytes' as const;

  constructor(
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly registration: GpdRegistrationService,
    private readonly gpd: GpdService,
  ) {}

  async run(context: JobContext<FlowPayload>): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { tenantId, jobId, payload } = context;
    const manifest = await this.manifest(payload);
    const inputs = await matchingRawFiles(this.store, this.env.S3_BUCKET, tenantId, manifest, payload.rawFile);
    if (!inputs || inputs.files.length === 0)
      throw new PermanentJobError(`no expanded raw file of ${payload.providerCode} matches ${manifest.input.filePattern}`);

    const mapper = new RowMapper(manifest, { ...DEFAULT_LIMITS, timeoutMs: this.env.EXTENSION_ROW_TIMEOUT_MS });
    const providerName = providerNameOf(manifest);
    const assembler = await GpdAssembler.create([...mapper.columns, SOURCE_FILE_COLUMN, SOURCE_ROW_COLUMN], MAX_COST_FILES);
    try {
      const counts = await this.mapAll(context, manifest, inputs, mapper, new RowPlacer(providerName), assembler);
      const outcome = outcomeOf(counts, this.env.INGEST_REJECTED_ROWS_THRESHOLD_PERCENT);
      if (outcome === 'failed') throw new PermanentJobError('no raw row could be mapped', { ...counts });
      const fileName = flowOutputName(manifest.providerCode);
      const objectKey = gpdObjectKey(tenantId, jobId, fileName);
      const totalBytes = inputs.files.reduce((sum, file) => sum + file.size, 0);
      const sizeBytes = await assembler
        .upload(
          this.store,
          this.env.S3_BUCKET,
          objectKey,
          { providerName, providerCode: manifest.providerCode, currency: currencyOf(manifest) },
          {
            maxBytes: this.env.GPD_MAX_FILE_BYTES,
            onPart: () => context.progress(totalBytes, totalBytes, { rows: counts.rowsRead }),
          },
        )
        .catch((error: Error) => {
          if (error instanceof BudgetExceededError)
            throw new PermanentJobError(`the generated GPD file is larger than ${error.limit} bytes (GPD_MAX_FILE_BYTES)`, { ...counts });
          throw error;
        });
      await this.registration.registerStored(tenantId, {
        refId: jobId,
        providerName,
        fileName,
        objectKey,
        sizeBytes,
        source: { providerCode: manifest.providerCode, rawFile: inputs.rawFile },
        ...(payload.requester?.submitter ? { createdBy: payload.requester.submitter } : {}),
      });
      // Chained, not awaited: a job must not wait for another job on the same queue.
      const gpdImport = payload.enrichAfter
        ? await this.gpd.import(
            tenantId,
            { GPDUploadRefId: [jobId], provider: [], retry: 'true' },
            undefined,
            payload.requester ?? SERVICE_IMPORT,
          )
        : undefined;
      const result = {
        ...(gpdImport ? { enrichmentJobId: gpdImport.jobs[0].jobId } : {}),
        ...counts,
        GPDUploadRefId: jobId,
        providerName,
        fileName,
        sizeBytes,
        rawUpload: inputs.rawFile,
        rawFiles: inputs.files.length,
        costFiles: assembler.fileCount,
      };
      return outcome === 'completed_with_errors' ? new CompletedWithErrors(result) : result;
    } finally {
      await assembler.dispose();
    }
  }

  private async manifest(payload: FlowPayload): Promise<ExtensionManifest> {
    const stat = await statOrNull(this.store, this.env.S3_BUCKET, payload.extensionKey);
    if (!stat) throw new PermanentJobError('the extension is no longer in the object store');
    const checked = await readExtension(
      this.store,
      this.env.S3_BUCKET,
      payload.extensionKey,
      stat.size,
      payload.providerCode,
      this.env.EXTENSION_MAX_BYTES,
    );
    if (!checked.manifest)
      throw new PermanentJobError(
        `the extension is invalid: ${checked.errors.map((error) => `${error.path ?? ''} ${error.message}`.trim()).join('; ')}`,
      );
    return checked.manifest;
  }

  private async mapAll(
    context: JobContext<FlowPayload>,
    manifest: ExtensionManifest,
    inputs: RawInputs,
    mapper: RowMapper,
    placer: RowPlacer,
    assembler: GpdAssembler,
  ): Promise<IngestCounts> {
    const report = new IngestReport();
    const totalBytes = inputs.files.reduce((sum, file) => sum + file.size, 0);
    let bytesDone = 0;
    const progress = () => context.progress(bytesDone, totalBytes, { rows: report.rowsRead });
    await progress();
    for (const input of inputs.files) {
      const file = input.key.slice(inputs.folder.length);
      const counter = byteCounter((bytes) => (bytesDone += bytes));
      const source = piped(await this.store.getObject(this.env.S3_BUCKET, input.key), counter);
      for await (const { row, line, problem: fieldProblem } of readRawRows(source, manifest.input.csv, file)) {
        report.rowsRead++;
        if (report.rowsRead % PROGRESS_ROWS === 0) await progress();
        if (fieldProblem) {
          report.record(file, line, [problem(RULES.fieldCount, fieldProblem)]);
          continue;
        }
        const mapped = await mapper.map(row);
        if (!mapped.ok) {
          report.record(file, line, [problem('MAPPING_FAILED', mapped.reason)]);
          continue;
        }
        const placement = placer.place(mapped.values, { file, line });
        if ('problems' in placement) {
          report.record(file, line, placement.problems);
          continue;
        }
        const refusal = await assembler.add(placement);
        if (refusal) report.record(file, line, [problem('TOO_MANY_ACCOUNT_FOLDERS', refusal)]);
        else report.rowsWritten++;
      }
    }
    await progress();
    return report.counts();
  }
}
