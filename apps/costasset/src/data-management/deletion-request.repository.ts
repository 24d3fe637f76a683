import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { DELETION_REQUEST, DeletionRequest } from './schemas/deletion-request.schema';

@Injectable()
export class DeletionRequestRepository extends TenantRepository<DeletionRequest> {
  constructor(@InjectModel(DELETION_REQUEST) model: Model<DeletionRequest>) {
    super(model);
  }
}
