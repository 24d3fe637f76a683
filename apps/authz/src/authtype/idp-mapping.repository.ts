import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { IdpMapping } from './schemas/idp-mapping.schema';

@Injectable()
export class IdpMappingRepository extends TenantRepository<IdpMapping> {
  constructor(@InjectModel(IdpMapping.name) model: Model<IdpMapping>) {
    super(model);
  }
}
