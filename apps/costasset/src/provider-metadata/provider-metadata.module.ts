import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { LocationRepository } from './location.repository';
import { LocationsController } from './locations.controller';
import { LocationsService } from './locations.service';
import { ProviderMetadataCache } from './provider-metadata.cache';
import { ProviderMetadataLookup } from './provider-metadata.lookup';
import { LocationMappingRecord, LocationMappingSchema } from './schemas/location-mapping.schema';
import { ServiceCategoryMapping, ServiceCategoryMappingSchema } from './schemas/service-category-mapping.schema';
import { ServiceCategoriesController } from './service-categories.controller';
import { ServiceCategoriesService } from './service-categories.service';
import { ServiceCategoryRepository } from './service-category.repository';

/** Service-category and location mappings (docs/interface.md#provider-metadata); exports the lookup enrichment uses. */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ServiceCategoryMapping.name, schema: ServiceCategoryMappingSchema },
      { name: LocationMappingRecord.name, schema: LocationMappingSchema },
    ]),
  ],
  controllers: [ServiceCategoriesController, LocationsController],
  providers: [
    ServiceCategoryRepository,
    LocationRepository,
    ServiceCategoriesService,
    LocationsService,
    ProviderMetadataCache,
    { provide: ProviderMetadataLookup, useExisting: ProviderMetadataCache },
  ],
  exports: [ProviderMetadataLookup],
})
export class ProviderMetadataModule {}
