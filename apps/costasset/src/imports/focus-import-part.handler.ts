import { Injectable } from '@nestjs/common';
import { setSpanAttributes } from '@lib/tracing';
import { ChildResult, JobContext, JobHandler, JobHandlerFor, PermanentJobError } from '../jobs/job-handler';
import { JOB_TYPES } from '../jobs/job-types';
import { FocusImportPartPayload } from '../uploads/import-payloads';
import { UploadAccess } from '../uploads/upload-access';
import { UploadsRepository } from '../uploads/uploads.repository';
import type { ImportScope, UploadPart } from '../uploads/schemas/upload.schema';
import { FocusLoader } from './focus-loader';
import { ImportReferenceData } from './map/reference-data';
import type { IngestCounts } from './report/ingest-report';
import type { PartSketchesHandoff } from './rules/part-overlap';
import { LineItemWriter } from './write/line-item-writer';

/** What a part job hands to its upload's `focus.import` job. */
export interface FocusPartHandoff {
  part: UploadPart;
  counts: IngestCounts;
  scopes: ImportScope[];
  sketches: PartSketchesHandoff;
  databaseMs: number;
  /** The part's rollup rows are stored; what the upload's job checks before taking them as current. */
  rollups: { generation: number; bumps: number; complete: boolean };
}

/**
 * The `focus.import-part` job: loads one part of a FOCUS upload (FocusLoader) into the upload's
 * hidden rows, each row marked with the part's index, stores the rollup rows it summed as the
 * part's, and hands its report, scopes and sketches to the upload's job. A retry first removes
 * what an earlier attempt of the part wrote; a part that fails for good removes its rows and ends
 * the upload's job (which removes the rest). A fault in the file itself fails the upload with the
 * file's report, as the one-job import does.
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.focusImportPart)
export class FocusImportPartHandler implements JobHandler<FocusImportPartPayload> {
  readonly progressUnit = 'bytes' as const;

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly loader: FocusLoader,
    private readonly reference: ImportReferenceData,
    private readonly writer: LineItemWriter,
    private readonly access: UploadAccess,
  ) {}

  async run(context: JobContext<FocusImportPartPayload>): Promise<ChildResult> {
    const { tenantId } = context;
    const { refId, partIndex } = context.payload;
    setSpanAttributes({ 'corelite.upload.id': refId, 'corelite.upload.part': partIndex });
    const upload = await this.uploads.findOne(tenantId, { refId });
    const part = upload?.parts?.[partIndex];
    if (!upload || !part || upload.status === 'cleaned') throw new PermanentJobError('the upload no longer exists');
    try {
      const rollups = this.writer.track(tenantId, refId);
      await rollups.touch();
      if (context.attempt > 1) await this.writer.removePartBeforeLoad(tenantId, refId, partIndex);
      const conversion = await this.reference.conversion(tenantId);
      const visibility = await this.access.importVisibility(tenantId, upload);
      const parts = [{ ...part, rowsRead: 0, rowsWritten: 0, rowsRejected: 0 }];
      const loaded = await this.loader.load({
        tenantId,
        upload,
        parts,
        conversion,
        visibility,
        rollups,
        progress: context.progress,
        sketch: true,
        partIndex,
      });
      const counts = loaded.report.counts();
      if (visibility.refused) throw visibility.refusal({ ...counts, parts });
      await rollups.storePart(partIndex);
      const [loadedPart] = parts;
      const handoff: FocusPartHandoff = {
        part: loadedPart,
        counts,
        scopes: loaded.scopes.values(),
        sketches: loaded.sketches[0].toHandoff(),
        databaseMs: loaded.databaseMs,
        rollups: { generation: context.payload.generation, ...rollups.parts },
      };
      const { name, rowsRead, rowsWritten, rowsRejected } = loadedPart;
      return new ChildResult(
        { part: name, rowsRead, rowsWritten, rowsRejected, databaseMs: Math.round(loaded.databaseMs) },
        { ...handoff },
      );
    } catch (error) {
      if (error instanceof PermanentJobError) await this.loader.fail(tenantId, refId, error);
      throw error;
    }
  }

  async onFailed(job: { tenantId: string; payload: FocusImportPartPayload }): Promise<void> {
    await this.writer.removePart(job.tenantId, job.payload.refId, job.payload.partIndex);
  }

  async onTerminated(job: { tenantId: string; payload: FocusImportPartPayload }): Promise<void> {
    await this.writer.removePart(job.tenantId, job.payload.refId, job.payload.partIndex);
  }
}
