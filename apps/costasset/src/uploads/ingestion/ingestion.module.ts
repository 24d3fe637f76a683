import { Module } from '@nestjs/common';
import { ExtensionsModule } from '../../extensions/extensions.module';
import { JobsModule } from '../../jobs/jobs.module';
import { UploadsModule } from '../uploads.module';
import { IngestionController } from './ingestion.controller';
import { IngestionService } from './ingestion.service';

/**
 * The consolidated ingestion routes (`enrichmentController`): apart from UploadsModule because they
 * also start extension flows, and ExtensionsModule itself reads upload records.
 */
@Module({ imports: [UploadsModule, JobsModule, ExtensionsModule], controllers: [IngestionController], providers: [IngestionService] })
export class IngestionModule {}
