import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AllocationModels } from './allocation-models';
import { AllocationSettingsRepository, DimensionVersionRepository } from './allocation.repositories';
import {
  ALLOCATION_SETTINGS,
  AllocationSettingsSchema,
  DIMENSION_VERSION,
  DimensionVersionSchema,
} from './schemas/allocation-settings.schema';

/** The allocation settings and their compiled models: below the rollups, which compute with them. */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ALLOCATION_SETTINGS, schema: AllocationSettingsSchema },
      { name: DIMENSION_VERSION, schema: DimensionVersionSchema },
    ]),
  ],
  providers: [AllocationSettingsRepository, DimensionVersionRepository, AllocationModels],
  exports: [AllocationSettingsRepository, DimensionVersionRepository, AllocationModels],
})
export class AllocationStoreModule {}
