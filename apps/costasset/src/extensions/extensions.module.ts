import { Module } from '@nestjs/common';
import { GpdRegistrationService } from '../gpd/gpd-registration.service';
import { GpdModule } from '../gpd/gpd.module';
import { JobsModule } from '../jobs/jobs.module';
import { ExtensionDataController } from './extension-data.controller';
import { ExtensionDataService } from './extension-data.service';
import { ExtensionRepoService } from './extension-repo.service';
import { ExtensionsController } from './extensions.controller';
import { ExtensionFlowHandler } from './flow/extension-flow.handler';
import { ExtensionFlowService } from './flow/extension-flow.service';
import { RawDataService } from './raw-data.service';

@Module({
  imports: [GpdModule, JobsModule],
  controllers: [ExtensionsController, ExtensionDataController],
  providers: [
    ExtensionRepoService,
    RawDataService,
    ExtensionDataService,
    ExtensionFlowService,
    ExtensionFlowHandler,
    GpdRegistrationService,
  ],
  exports: [GpdRegistrationService, ExtensionFlowService],
})
export class ExtensionsModule {}
