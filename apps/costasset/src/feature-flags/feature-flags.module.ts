import { Global, Module } from '@nestjs/common';
import { CoreSettingsClient } from './core-settings.client';
import { FeatureFlagsController } from './feature-flags.controller';
import { FeatureFlagsService } from './feature-flags.service';

@Global()
@Module({ controllers: [FeatureFlagsController], providers: [FeatureFlagsService, CoreSettingsClient], exports: [CoreSettingsClient] })
export class FeatureFlagsModule {}
