import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { UPLOAD_MODEL, Upload } from './schemas/upload.schema';

@Injectable()
export class UploadsRepository extends TenantRepository<Upload> {
  constructor(@InjectModel(UPLOAD_MODEL) model: Model<Upload>) {
    super(model);
  }
}
