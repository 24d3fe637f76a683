import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { Membership } from './schemas/membership.schema';

@Injectable()
export class MembershipRepository extends TenantRepository<Membership> {
  constructor(@InjectModel(Membership.name) model: Model<Membership>) {
    super(model);
  }
}
