import { Injectable, Logger } from '@nestjs/common';
import { Client } from 'minio';
import { Problems } from '@lib/core';
import { MessageBus } from '@lib/messaging';
import { CostassetEnvironment } from '../costasset.environment';
import type { RowsRemovedDto } from '../line-items/dto/rows-removed.dto';
import { UploadRows } from '../imports/write/upload-rows';
import { JobsService } from '../jobs/jobs.service';
import { IMPORTING_STATUSES, Upload } from './schemas/upload.schema';
import { UploadsRepository } from './uploads.repository';

/** The cleanup of one upload, GPD or FOCUS: the same steps whichever route asked for it. */
@Injectable()
export class UploadCleanup {
  private readonly logger = new Logger('Uploads');

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly jobs: JobsService,
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly rows: UploadRows,
    private readonly bus: MessageBus,
  ) {}

  /**
   * Ends the upload's import if one runs, removes its stored files (`objectKeys`; nothing is cleaned
   * when the object store cannot be reached) and its rows, marks it `cleaned` and, when rows went,
   * says that line items changed.
   */
  async clean(tenantId: string, upload: Upload, objectKeys: readonly string[]): Promise<RowsRemovedDto> {
    const { refId } = upload;
    if (IMPORTING_STATUSES.includes(upload.status) && upload.jobId) await this.jobs.terminate(tenantId, upload.jobId);
    for (const key of objectKeys) {
      await this.store.removeObject(this.env.S3_BUCKET, key).catch((error: Error) => {
        this.logger.error({ err: error.message, refId }, 'cannot remove an uploaded file');
        throw Problems.unavailable('OBJECT_STORE_UNAVAILABLE', 'The object store cannot be reached; nothing was cleaned');
      });
    }
    const removed = await this.rows.remove(tenantId, refId);
    await this.uploads.markCleaned(tenantId, refId);
    if (removed.costLineItems > 0) await this.bus.publish('costasset.lineitems.changed', { tenantId, periods: [], reason: 'cleanup' });
    return removed;
  }
}
