import { Module } from '@nestjs/common';
import { RollupsModule } from '../rollups/rollups.module';
import { MongooseModule } from '@nestjs/mongoose';
import { UploadsModule } from '../uploads/uploads.module';
import { JOB, JobSchema } from '../jobs/schemas/job.schema';
import { LineItemsModule } from '../line-items/line-items.module';
import { ReportOutput, ReportOutputSchema } from '../report-models/schemas/report-output.schema';
import { HousekeepingController } from './housekeeping.controller';
import { JobRecordStore, ReportOutputStore } from './housekeeping.repositories';
import { HousekeepingService } from './housekeeping.service';

@Module({
  imports: [
    RollupsModule,
    MongooseModule.forFeature([
      { name: ReportOutput.name, schema: ReportOutputSchema },
      { name: JOB, schema: JobSchema },
    ]),
    UploadsModule,
    LineItemsModule,
  ],
  controllers: [HousekeepingController],
  providers: [ReportOutputStore, JobRecordStore, HousekeepingService],
})
export class HousekeepingModule {}
