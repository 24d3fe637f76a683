import { Injectable, OnModuleInit } from '@nestjs/common';
import { Client } from 'minio';
import { CostassetEnvironment } from '../../costasset.environment';
import { gpdObjectKey } from '../../gpd/gpd.constants';
import { GpdRegistrationService } from '../../gpd/gpd-registration.service';
import { JobContext, JobHandler, PermanentJobError } from '../../jobs/job-handler';
import { GpdService } from '../../gpd/gpd.service';
import { JobsService } from '../../jobs/jobs.service';
import { BudgetExceededError } from '../archive/byte-budget';
import { readExtension } from '../manifest/extension-archive';
import { currencyOf, ExtensionManifest, providerNameOf } from '../manifest/extension-manifest';
import { StoredObject, statOrNull } from '../store/stream-upload';
import { rawExpandedFolder } from '../tenant-keys';
import { EXTENSION_FLOW_JOB, FlowPayload, flowOutputName } from './extension-flow.constants';
import { GpdAssembler } from './gpd-assembler';
import { placeRow } from './gpd-placement';
import { readRawRows } from './raw-csv';
import { matchingRawFiles } from './raw-inputs';
import { DEFAULT_LIMITS, RowMapper } from './row-mapper';

const MAX_REPORTED_ERRORS = 100;
const MAX_COST_FILES = 10_000;
const HEARTBEAT_ROWS = 2000;

interface FlowCounts {
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
  errors: { file: string; line: number; reason: string }[];
}

/**
 * The `extension-flow` job: maps every matching expanded raw CSV, row by row, into a GPD zip at
 * `tenants/<tenantId>/gpd/<jobId>/<provider>-extension.zip` and registers it as a GPD upload
 * whose ref id is the job id. A rerun writes the same key and refreshes the same upload.
 */
@Injectable()
export class ExtensionFlowHandler implements JobHandler<FlowPayload>, OnModuleInit {
  readonly progressUnit = 'files' as const;
  readonly access = 'system-admin' as const;

  constructor(
    private readonly jobs: JobsService,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly registration: GpdRegistrationService,
    private readonly gpd: GpdService,
  ) {}

  onModuleInit(): void {
    this.jobs.register(EXTENSION_FLOW_JOB, this);
  }

  async run(context: JobContext<FlowPayload>): Promise<Record<string, unknown>> {
    const { tenantId, jobId, payload } = context;
    const manifest = await this.manifest(payload);
    const inputs = await matchingRawFiles(this.store, this.env.S3_BUCKET, tenantId, manifest);
    if (inputs.length === 0)
      throw new PermanentJobError(`no expanded raw file of ${payload.providerCode} matches ${manifest.input.filePattern}`);

    // progress unit: one raw file, plus one for writing the GPD zip
    const steps = inputs.length + 1;
    const mapper = new RowMapper(manifest, { ...DEFAULT_LIMITS, timeoutMs: this.env.EXTENSION_ROW_TIMEOUT_MS });
    const assembler = await GpdAssembler.create(mapper.columns, MAX_COST_FILES);
    try {
      const counts = await this.mapAll(context, manifest, inputs, mapper, assembler);
      if (counts.rowsWritten === 0) throw new PermanentJobError('no raw row could be mapped', { ...counts });
      const fileName = flowOutputName(manifest.providerCode);
      const objectKey = gpdObjectKey(tenantId, jobId, fileName);
      const providerName = providerNameOf(manifest);
      const sizeBytes = await assembler
        .upload(
          this.store,
          this.env.S3_BUCKET,
          objectKey,
          { providerName, providerCode: manifest.providerCode, currency: currencyOf(manifest) },
          { maxBytes: this.env.GPD_MAX_FILE_BYTES, onPart: () => context.progress(inputs.length, steps) },
        )
        .catch((error: Error) => {
          if (error instanceof BudgetExceededError)
            throw new PermanentJobError(`the generated GPD file is larger than ${error.limit} bytes (GPD_MAX_FILE_BYTES)`, { ...counts });
          throw error;
        });
      await this.registration.registerStored(tenantId, { refId: jobId, providerName, fileName, objectKey, sizeBytes });
      await context.progress(steps, steps);
      // Chained, not awaited: a job must not wait for another job on the same queue.
      const enrichment = payload.enrichAfter ? await this.gpd.enrich(tenantId, { GPDUploadRefId: [jobId], provider: [], retry: 'true' }) : undefined;
      return {
        ...(enrichment ? { enrichmentJobId: enrichment.jobs[0].jobId } : {}),
        ...counts,
        GPDUploadRefId: jobId,
        providerName,
        fileName,
        sizeBytes,
        rawFiles: inputs.length,
        costFiles: assembler.fileCount,
      };
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
    inputs: StoredObject[],
    mapper: RowMapper,
    assembler: GpdAssembler,
  ): Promise<FlowCounts> {
    const counts: FlowCounts = { rowsRead: 0, rowsWritten: 0, rowsRejected: 0, errors: [] };
    const folder = rawExpandedFolder(context.tenantId, context.payload.providerCode);
    for (const [index, input] of inputs.entries()) {
      await context.progress(index, inputs.length + 1);
      const file = input.key.slice(folder.length);
      const reject = (line: number, reason: string) => {
        counts.rowsRejected++;
        if (counts.errors.length < MAX_REPORTED_ERRORS) counts.errors.push({ file, line, reason });
      };
      for await (const { row, line, problem } of readRawRows(
        await this.store.getObject(this.env.S3_BUCKET, input.key),
        manifest.input.csv,
        file,
      )) {
        counts.rowsRead++;
        if (counts.rowsRead % HEARTBEAT_ROWS === 0) await context.progress(index, inputs.length + 1);
        if (problem) {
          reject(line, problem);
          continue;
        }
        const mapped = await mapper.map(row);
        if (!mapped.ok) {
          reject(line, mapped.reason);
          continue;
        }
        const placement = placeRow(mapped.values);
        const refusal = typeof placement === 'string' ? placement : await assembler.add(placement, mapped.values);
        if (refusal) reject(line, refusal);
        else counts.rowsWritten++;
      }
    }
    return counts;
  }
}
