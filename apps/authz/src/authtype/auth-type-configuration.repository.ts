import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { AuthTypeConfiguration } from './schemas/auth-type-configuration.schema';

@Injectable()
export class AuthTypeConfigurationRepository extends TenantRepository<AuthTypeConfiguration> {
  constructor(@InjectModel(AuthTypeConfiguration.name) model: Model<AuthTypeConfiguration>) {
    super(model);
  }
}
