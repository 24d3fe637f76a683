import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { FeatureFlagRepository } from './feature-flag.repository';
import { FeatureFlagsController } from './feature-flags.controller';
import { FeatureFlagsHandler } from './feature-flags.handler';
import { FeatureFlagsService } from './feature-flags.service';
import { FeatureFlag, FeatureFlagSchema } from './schemas/feature-flag.schema';

@Module({
  imports: [MongooseModule.forFeature([{ name: FeatureFlag.name, schema: FeatureFlagSchema }])],
  controllers: [FeatureFlagsController],
  providers: [FeatureFlagRepository, FeatureFlagsService, FeatureFlagsHandler],
  exports: [FeatureFlagsService],
})
export class FeatureFlagsModule {}
