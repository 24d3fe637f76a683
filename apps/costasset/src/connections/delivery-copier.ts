import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { PassThrough, pipeline } from 'node:stream';
import { CostassetEnvironment } from '../costasset.environment';
import { rethrowTransient } from '../jobs/faults';
import { focusPartKey, formatOfName } from '../uploads/upload-keys';
import type { UploadPart } from '../uploads/schemas/upload.schema';
import type { BucketSource, ListedObject } from './sources/bucket-source';

/**
 * Copies a delivery's data files from the connection's bucket into the product's object store,
 * streamed (never held in memory), as the parts of one FOCUS upload. A part already copied whole
 * (a resumed sync) is not copied again. Imports then read the copies, so a file changed in the
 * source meanwhile cannot change an import half-way.
 */
@Injectable()
export class DeliveryCopier {
  constructor(
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
  ) {}

  async copy(
    tenantId: string,
    refId: string,
    source: BucketSource,
    files: ListedObject[],
    copied: (file: ListedObject) => Promise<void>,
  ): Promise<UploadPart[]> {
    const parts: UploadPart[] = [];
    for (const [index, file] of files.entries()) {
      const objectKey = focusPartKey(tenantId, refId, index, file.key);
      if ((await this.storedSize(objectKey)) !== file.size) await this.copyOne(source, file, objectKey);
      parts.push({
        name: file.key,
        objectKey,
        format: formatOfName(file.key) as UploadPart['format'],
        declaredBytes: file.size,
        sizeBytes: file.size,
        rowsRead: 0,
        rowsWritten: 0,
        rowsRejected: 0,
      });
      await copied(file);
    }
    return parts;
  }

  private async storedSize(objectKey: string): Promise<number | undefined> {
    try {
      return (await this.store.statObject(this.env.S3_BUCKET, objectKey)).size;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'NotFound' || code === 'NoSuchKey') return undefined;
      rethrowTransient('object store', error);
      throw error;
    }
  }

  private async copyOne(source: BucketSource, file: ListedObject, objectKey: string): Promise<void> {
    const body = await source.read(file.key);
    // a broken source connection fails the copy (pipeline), instead of leaving the upload waiting
    const relay = new PassThrough();
    const piped = new Promise<void>((resolve, reject) => pipeline(body, relay, (error) => (error ? reject(error) : resolve())));
    try {
      await Promise.all([this.store.putObject(this.env.S3_BUCKET, objectKey, relay, file.size), piped]);
    } catch (error) {
      rethrowTransient('export source', error);
      throw error;
    }
  }
}
