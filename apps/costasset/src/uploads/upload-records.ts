import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { UPLOAD_MODEL, Upload, UploadFormat, UploadStatus } from './schemas/upload.schema';

/**
 * The upload collection with the generic tenant repository operations: UploadsRepository's
 * alone. UploadsModule does not export it, and upload-status-owner.spec.ts fails on any import of
 * it outside uploads/ (tests aside), so no other code can write an upload.
 */
@Injectable()
export class UploadRecords extends TenantRepository<Upload> {
  constructor(@InjectModel(UPLOAD_MODEL) model: Model<Upload>) {
    super(model);
  }

  /** Renames a status of one format in every tenant (a start-up migration): the count changed. */
  async renameStatusAcrossTenants(format: UploadFormat, from: UploadStatus, to: UploadStatus): Promise<number> {
    const result = await this.model.updateMany({ format, status: from }, { $set: { status: to } }, this.limits('bulk')).exec();
    return result.modifiedCount;
  }
}
