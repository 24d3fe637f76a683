import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { JobsModule } from '../jobs/jobs.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { RollupsModule } from '../rollups/rollups.module';
import { AnomaliesController } from './anomalies.controller';
import { AnomaliesService } from './anomalies.service';
import { AnomalyDetector } from './anomaly-detector';
import { AnomalyJobs } from './anomaly-jobs';
import { AnomalySettingsService } from './anomaly-settings.service';
import { AnomalyRepository, AnomalySettingsRepository } from './anomaly.repository';
import { Anomaly, AnomalySchema } from './schemas/anomaly.schema';
import { AnomalySettings, AnomalySettingsSchema } from './schemas/anomaly-settings.schema';

/** Cost anomaly detection: the runs (jobs), the records and their triage, the tenant's parameters (docs/anomalies.md). */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Anomaly.name, schema: AnomalySchema },
      { name: AnomalySettings.name, schema: AnomalySettingsSchema },
    ]),
    JobsModule,
    NotificationsModule,
    RollupsModule,
    ResourceGroupsModule,
  ],
  controllers: [AnomaliesController],
  providers: [AnomalyRepository, AnomalySettingsRepository, AnomalySettingsService, AnomalyDetector, AnomalyJobs, AnomaliesService],
})
export class AnomaliesModule {}
