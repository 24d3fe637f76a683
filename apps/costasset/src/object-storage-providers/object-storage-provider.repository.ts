import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { ObjectStorageProvider } from './schemas/object-storage-provider.schema';

@Injectable()
export class ObjectStorageProviderRepository extends TenantRepository<ObjectStorageProvider> implements OnModuleInit {
  constructor(@InjectModel(ObjectStorageProvider.name) model: Model<ObjectStorageProvider>) {
    super(model);
  }

  /** The unique code index must exist before the first create, or a duplicate could slip in on a fresh database. */
  async onModuleInit(): Promise<void> {
    await this.model.init();
  }
}
