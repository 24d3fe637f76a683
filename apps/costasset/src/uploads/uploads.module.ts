import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { UploadCleanup } from './upload-cleanup';
import { UploadRowsModule } from '../imports/write/upload-rows.module';
import { JobsModule } from '../jobs/jobs.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { FocusUploadsController } from './focus/focus-uploads.controller';
import { FocusUploadsService } from './focus/focus-uploads.service';
import { FocusStatusMigration } from './focus-status-migration';
import { GpdRegistrationService } from './gpd/gpd-registration.service';
import { GpdController } from './gpd/gpd.controller';
import { GpdService } from './gpd/gpd.service';
import { UPLOAD_MODEL, UploadSchema } from './schemas/upload.schema';
import { UploadAccess } from './upload-access';
import { UploadRecords } from './upload-records';
import { UploadsRepository } from './uploads.repository';

/**
 * Upload records (GPD zips and FOCUS files) and the routes that create, list, import and clean them
 * (`/v1/gpd`, `/v1/focus/uploads`): the one owner of an upload's state, which only
 * UploadsRepository changes (UploadRecords, the collection itself, is not exported). The imports
 * themselves are jobs (ImportsModule); the ingestion routes, which also start extension flows, are
 * IngestionModule.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: UPLOAD_MODEL, schema: UploadSchema }]), JobsModule, UploadRowsModule, ResourceGroupsModule],
  controllers: [GpdController, FocusUploadsController],
  providers: [
    UploadRecords,
    UploadsRepository,
    FocusStatusMigration,
    GpdService,
    GpdRegistrationService,
    FocusUploadsService,
    UploadAccess,
    UploadCleanup,
  ],
  exports: [UploadsRepository, GpdService, GpdRegistrationService, UploadAccess, FocusUploadsService],
})
export class UploadsModule {}
