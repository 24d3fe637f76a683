import { Module } from '@nestjs/common';
import { ExtensionsModule } from '../extensions/extensions.module';
import { GpdModule } from '../gpd/gpd.module';
import { JobsModule } from '../jobs/jobs.module';
import { IngestionController } from './ingestion.controller';
import { IngestionService } from './ingestion.service';

@Module({ imports: [GpdModule, JobsModule, ExtensionsModule], controllers: [IngestionController], providers: [IngestionService] })
export class IngestionModule {}
