import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { GpdController } from './gpd.controller';
import { GpdUploadRepository } from './gpd.repository';
import { GpdService } from './gpd.service';
import { UploadOutcomes } from './upload-outcomes';
import { GPD_UPLOAD, GpdUploadSchema } from './schemas/gpd-upload.schema';

@Module({
  imports: [MongooseModule.forFeature([{ name: GPD_UPLOAD, schema: GpdUploadSchema }]), JobsModule, LineItemsModule],
  controllers: [GpdController],
  providers: [GpdUploadRepository, GpdService, UploadOutcomes],
  exports: [GpdUploadRepository, GpdService, UploadOutcomes],
})
export class GpdModule {}
