import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { ResourceGroup } from './schemas/resource-group.schema';

@Injectable()
export class ResourceGroupRepository extends TenantRepository<ResourceGroup> {
  constructor(@InjectModel(ResourceGroup.name) model: Model<ResourceGroup>) {
    super(model);
  }
}
