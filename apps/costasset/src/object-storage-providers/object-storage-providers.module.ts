import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ObjectStorageProviderRepository } from './object-storage-provider.repository';
import { ObjectStorageProvidersController } from './object-storage-providers.controller';
import { ObjectStorageProvidersService } from './object-storage-providers.service';
import { ObjectStorageProvider, ObjectStorageProviderSchema } from './schemas/object-storage-provider.schema';

/** Object-storage providers, addressed by `providerCode` (docs/interface.md#object-storage-providers). */
@Module({
  imports: [MongooseModule.forFeature([{ name: ObjectStorageProvider.name, schema: ObjectStorageProviderSchema }])],
  controllers: [ObjectStorageProvidersController],
  providers: [ObjectStorageProviderRepository, ObjectStorageProvidersService],
})
export class ObjectStorageProvidersModule {}
