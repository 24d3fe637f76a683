import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ExtensionFlowService } from '../imports/extension-flow/extension-flow.service';
import { JobsModule } from '../jobs/jobs.module';
import { UploadsModule } from '../uploads/uploads.module';
import { ExtensionDataController } from './extension-data.controller';
import { ExtensionDataService } from './extension-data.service';
import { ExtensionRepoService } from './extension-repo.service';
import { ExtensionsController } from './extensions.controller';
import { RawDataService } from './raw-data.service';
import { DeclaredUpload, DeclaredUploadSchema } from './schemas/declared-upload.schema';
import { DeclaredUploadRepository, DeclaredUploads } from './store/declared-uploads';
import { UploadFileAccess } from './upload-file-access';

/**
 * Extension archives, raw data and the tenant's files. Starting a flow (ExtensionFlowService) is
 * provided here, beside the extension repository it reads; the flow job is ImportsModule's.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: DeclaredUpload.name, schema: DeclaredUploadSchema }]), UploadsModule, JobsModule],
  controllers: [ExtensionsController, ExtensionDataController],
  providers: [
    ExtensionRepoService,
    RawDataService,
    ExtensionDataService,
    UploadFileAccess,
    ExtensionFlowService,
    DeclaredUploadRepository,
    DeclaredUploads,
  ],
  exports: [ExtensionFlowService],
})
export class ExtensionsModule {}
