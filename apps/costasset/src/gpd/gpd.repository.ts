import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { GPD_UPLOAD, GpdUpload } from './schemas/gpd-upload.schema';

@Injectable()
export class GpdUploadRepository extends TenantRepository<GpdUpload> {
  constructor(@InjectModel(GPD_UPLOAD) model: Model<GpdUpload>) {
    super(model);
  }
}
