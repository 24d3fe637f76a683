import { Injectable } from '@nestjs/common';
import { inSpan } from '@lib/tracing';
import type { CurrencyConversion } from '../currency/currency-converter';
import { PermanentJobError, type JobContext } from '../jobs/job-handler';
import type { LoadTracker } from '../rollups/rollups.service';
import type { ImportVisibility } from '../uploads/import-visibility';
import type { RejectedRow, Upload, UploadPart } from '../uploads/schemas/upload.schema';
import { FailureCounts, UploadsRepository } from '../uploads/uploads.repository';
import { costRowReader, missingRequiredColumns, planHeader, providerOfCells, RULES } from './map/cost-row';
import { detectVersion, FocusVersion, parseVersion } from './map/focus-columns';
import { ImportReferenceData } from './map/reference-data';
import type { FocusFile } from './read/focus-file';
import { ImportSources } from './read/import-sources';
import { IngestReport, MAX_REPORTED_ROWS, problem } from './report/ingest-report';
import { PartSketches } from './rules/part-overlap';
import { ImportScopes } from './write/import-scopes';
import { LineItemWriter } from './write/line-item-writer';

/** Values a FOCUS row cannot be stored without (the rest of the mandatory columns are conformance warnings). */
export const FOCUS_REQUIRED_VALUES = ['ChargePeriodStart', 'BilledCost', 'BillingCurrency', 'BillingAccountId', 'ProviderName'];
const PROGRESS_ROWS = 10_000;

/** The version of a file: declared by the client, else named by its metadata, else shown by its columns. */
function versionOf(file: FocusFile, declared: FocusVersion | undefined): Pick<UploadPart, 'focusVersion' | 'versionSource'> {
  if (declared) return { focusVersion: declared, versionSource: 'declared' };
  const entry = Object.entries(file.metadata).find(([key]) => /^focus[ _-]?version$/i.test(key));
  const fromMetadata = parseVersion(entry?.[1]);
  if (fromMetadata) return { focusVersion: fromMetadata, versionSource: 'metadata' };
  return { focusVersion: detectVersion(file.header), versionSource: 'columns' };
}

export interface FocusLoadRequest {
  tenantId: string;
  upload: Upload;
  /** The parts to read: all of the upload's, or one (a part job). Their counts are filled in. */
  parts: UploadPart[];
  conversion: CurrencyConversion;
  visibility: ImportVisibility;
  rollups: LoadTracker;
  progress: JobContext['progress'];
  /** Sketch each part's rows (rules/part-overlap), to compare parts of one upload. */
  sketch: boolean;
  /** The part's index, stored on each row of a part job (`uploadPart`): what its retry removes first. */
  partIndex?: number;
}

export interface FocusLoad {
  report: IngestReport;
  scopes: ImportScopes;
  sketches: PartSketches[];
  databaseMs: number;
}

/**
 * Reads, maps, checks and writes the rows of FOCUS parts (the stages of the pipeline for one
 * upload, or for one of its parts run as its own job): each file streamed, its version found, its
 * header planned (missing required columns refuse it), every row checked with the shared rules
 * and written in batches; scopes counted, rows sketched, progress in bytes.
 */
@Injectable()
export class FocusLoader {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly sources: ImportSources,
    private readonly reference: ImportReferenceData,
    private readonly writer: LineItemWriter,
  ) {}

  /** Nothing half-written: a failed import keeps no rows, but keeps its report (the error's details). */
  async fail(tenantId: string, refId: string, error: PermanentJobError): Promise<void> {
    await this.writer.removeAll(tenantId, refId);
    const errors = (error.details.errors as RejectedRow[] | undefined) ?? [{ file: '', line: 0, reason: error.message }];
    await this.uploads.markFailed(tenantId, refId, errors.slice(0, MAX_REPORTED_ROWS), error.details as FailureCounts);
  }

  async load(request: FocusLoadRequest): Promise<FocusLoad> {
    const { tenantId, upload, parts, conversion, visibility, rollups, partIndex } = request;
    const report = new IngestReport();
    for (const part of parts) await this.sources.statPart(part);
    const totalBytes = parts.reduce((sum, part) => sum + (part.sizeBytes ?? 0), 0);
    let bytesBefore = 0;
    let current: FocusFile | undefined;
    const progress = () => request.progress(bytesBefore + (current?.bytesRead() ?? 0), totalBytes, { rows: report.rowsRead });
    const writer = this.writer.batches(tenantId, async (written, kind, sent) => {
      report.rowsWritten += written;
      if (kind === 'cost') rollups.stored(sent, written);
      // keeps the upload's stale mark fresh, so that a long load is never taken for a crash left behind
      await rollups.touch();
      await progress();
    });
    const scopes = new ImportScopes();
    const providers = this.reference.providers(tenantId);
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
      const sketch = request.sketch ? new PartSketches(part.name, file.header) : undefined;
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
          if (partIndex !== undefined) result.doc.uploadPart = partIndex;
          rollups.add(result.doc);
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
    await writer.flushAll();
    await progress();
    return { report, scopes, sketches, databaseMs: writer.databaseMs };
  }
}
