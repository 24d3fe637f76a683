import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { Org } from './schemas/org.schema';

@Injectable()
export class OrgRepository extends TenantRepository<Org> {
  constructor(@InjectModel(Org.name) model: Model<Org>) {
    super(model);
  }
}
