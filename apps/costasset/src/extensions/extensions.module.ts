import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
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
import { DeclaredUpload, DeclaredUploadSchema } from './schemas/declared-upload.schema';
import { DeclaredUploadRepository, DeclaredUploads } from './store/declared-uploads';
import { UploadFileAccess } from './upload-file-access';

@Module({
  imports: [MongooseModule.forFeature([{ name: DeclaredUpload.name, schema: DeclaredUploadSchema }]), GpdModule, JobsModule],
  controllers: [ExtensionsController, ExtensionDataController],
  providers: [
    ExtensionRepoService,
    RawDataService,
    ExtensionDataService,
    UploadFileAccess,
    ExtensionFlowService,
    ExtensionFlowHandler,
    GpdRegistrationService,
    DeclaredUploadRepository,
    DeclaredUploads,
  ],
  exports: [GpdRegistrationService, ExtensionFlowService],
})
export class ExtensionsModule {}
