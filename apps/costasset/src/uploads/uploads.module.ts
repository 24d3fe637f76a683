import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { RollupsModule } from '../rollups/rollups.module';
import { FocusUploadsController } from './focus/focus-uploads.controller';
import { FocusUploadsService } from './focus/focus-uploads.service';
import { GpdRegistrationService } from './gpd/gpd-registration.service';
import { GpdController } from './gpd/gpd.controller';
import { GpdService } from './gpd/gpd.service';
import { UPLOAD_MODEL, UploadSchema } from './schemas/upload.schema';
import { UploadAccess } from './upload-access';
import { UploadOutcomes } from './upload-outcomes';
import { UploadsRepository } from './uploads.repository';

/**
 * Upload records (GPD zips and FOCUS files) and the routes that create, list, import and clean them
 * (`/v1/gpd`, `/v1/focus/uploads`): the one owner of an upload's state. The imports themselves are
 * jobs (ImportsModule); the ingestion routes, which also start extension flows, are IngestionModule.
 */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: UPLOAD_MODEL, schema: UploadSchema }]),
    JobsModule,
    LineItemsModule,
    RollupsModule,
    ResourceGroupsModule,
  ],
  controllers: [GpdController, FocusUploadsController],
  providers: [UploadsRepository, GpdService, GpdRegistrationService, FocusUploadsService, UploadOutcomes, UploadAccess],
  exports: [UploadsRepository, GpdService, GpdRegistrationService, UploadOutcomes, UploadAccess],
})
export class UploadsModule {}
