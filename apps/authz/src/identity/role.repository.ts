import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { Role } from './schemas/role.schema';

@Injectable()
export class RoleRepository extends TenantRepository<Role> {
  constructor(@InjectModel(Role.name) model: Model<Role>) {
    super(model);
  }
}
