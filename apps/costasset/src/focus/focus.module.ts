import { Module } from '@nestjs/common';
import { EnrichmentModule } from '../enrichment/enrichment.module';
import { GpdModule } from '../gpd/gpd.module';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { FocusExportController } from './export/focus-export.controller';
import { FocusExportService } from './export/focus-export.service';
import { FocusImportHandler } from './focus-import.handler';
import { FocusUploadsController } from './focus-uploads.controller';
import { FocusUploadsService } from './focus-uploads.service';
import { ImportReplacement } from './import-replacement';

/** FOCUS 1.0–1.3 imports (no manifest) and FOCUS exports of line items. */
@Module({
  imports: [GpdModule, JobsModule, LineItemsModule, EnrichmentModule],
  controllers: [FocusUploadsController, FocusExportController],
  providers: [FocusUploadsService, FocusImportHandler, ImportReplacement, FocusExportService],
})
export class FocusModule {}
