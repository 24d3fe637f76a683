import { Injectable } from '@nestjs/common';
import { isDuplicateKey } from '@lib/core';
import { UploadsRepository } from '../uploads.repository';
import type { UploadCreator } from '../schemas/upload.schema';

export interface StoredGpdFile {
  refId: string;
  providerName: string;
  fileName: string;
  objectKey: string;
  sizeBytes: number;
  /** The raw upload an extension flow made the file from. */
  source?: { providerCode: string; rawFile: string };
  /** The user whose flow wrote the file: it sees the upload. */
  createdBy?: UploadCreator;
}

/**
 * Registers a GPD zip that is already in the object store (written by the service itself, e.g.
 * the extension flow) as an upload in state `uploaded`, ready for `POST /v1/gpd/enrich`.
 * Idempotent per `refId`: registering again refreshes an upload not yet enriched.
 */
@Injectable()
export class GpdRegistrationService {
  constructor(private readonly uploads: UploadsRepository) {}

  async registerStored(tenantId: string, file: StoredGpdFile): Promise<void> {
    const existing = await this.uploads.findOne(tenantId, { refId: file.refId });
    if (!existing) {
      try {
        await this.uploads.register(tenantId, { ...file, format: 'gpd' }, 'uploaded');
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    }
    const { refId, ...stored } = file;
    await this.uploads.markUploaded(tenantId, refId, stored);
  }
}
