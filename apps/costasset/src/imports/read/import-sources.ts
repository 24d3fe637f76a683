import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { CostassetEnvironment } from '../../costasset.environment';
import { rethrowTransient } from '../../jobs/faults';
import { PermanentJobError } from '../../jobs/job-handler';
import { focusPartRefusal, gpdFileLimits } from '../../object-store/upload-urls';
import type { Upload, UploadPart } from '../../uploads/schemas/upload.schema';
import type { FocusFile } from './focus-file';
import { openFocusFile } from './focus-file-reader';
import { GpdArchive } from './gpd-plan';

/**
 * The read stage's access to the stored files of an upload. A file that is gone or not of its
 * declared size fails the import (PermanentJobError); a fault of the object store is a
 * TransientFault ("object store unreachable: …"), retried.
 */
@Injectable()
export class ImportSources {
  constructor(
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
  ) {}

  /** Checks a FOCUS part is in the store, of its declared size and within the limit; records its size. */
  async statPart(part: UploadPart): Promise<void> {
    const stat = await this.store.statObject(this.env.S3_BUCKET, part.objectKey).catch((error: { code?: string }) => {
      if (error.code === 'NotFound' || error.code === 'NoSuchKey')
        throw new PermanentJobError(`${part.name} is no longer in the object store`);
      rethrowTransient('object store', error);
      throw error;
    });
    const refusal = focusPartRefusal(stat.size, part, this.env);
    if (refusal) throw new PermanentJobError(`${part.name} ${refusal}`, { errors: [{ file: part.name, line: 0, reason: refusal }] });
    part.sizeBytes = stat.size;
  }

  openFocusFile(part: UploadPart): Promise<FocusFile> {
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

  openGpdArchive(upload: Pick<Upload, 'objectKey' | 'declaredBytes'>): Promise<GpdArchive> {
    return GpdArchive.open(this.store, this.env.S3_BUCKET, upload.objectKey, gpdFileLimits(upload, this.env));
  }
}
