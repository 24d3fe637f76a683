import { Module } from '@nestjs/common';
import { RollupsModule } from '../rollups/rollups.module';
import { MongooseModule } from '@nestjs/mongoose';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { GpdController } from './gpd.controller';
import { GpdUploadRepository } from './gpd.repository';
import { GpdService } from './gpd.service';
import { UploadAccess } from './upload-access';
import { UploadOutcomes } from './upload-outcomes';
import { GPD_UPLOAD, GpdUploadSchema } from './schemas/gpd-upload.schema';

@Module({
  imports: [
    MongooseModule.forFeature([{ name: GPD_UPLOAD, schema: GpdUploadSchema }]),
    JobsModule,
    LineItemsModule,
    RollupsModule,
    ResourceGroupsModule,
  ],
  controllers: [GpdController],
  providers: [GpdUploadRepository, GpdService, UploadOutcomes, UploadAccess],
  exports: [GpdUploadRepository, GpdService, UploadOutcomes, UploadAccess],
})
export class GpdModule {}
