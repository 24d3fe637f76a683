import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { RollupsModule } from '../rollups/rollups.module';
import { UploadsModule } from '../uploads/uploads.module';
import { ExtensionFlowHandler } from './extension-flow/extension-flow.handler';
import { FocusImportHandler } from './focus-import.handler';
import { FocusImportPartHandler } from './focus-import-part.handler';
import { FocusLoader } from './focus-loader';
import { GpdImportHandler } from './gpd-import.handler';
import { ImportReferenceData } from './map/reference-data';
import { ImportSources } from './read/import-sources';
import { ImportOutcomes } from './report/import-outcomes';
import { DiscoveryGate } from './rules/discovery-gate';
import { ImportReplacement } from './write/import-replacement';
import { LineItemWriter } from './write/line-item-writer';
import { UploadRowsModule } from './write/upload-rows.module';

/**
 * The import pipeline: the jobs that read an upload (read/: ImportSources), map its rows (map/:
 * ImportReferenceData), check them (rules/), write them (write/: LineItemWriter,
 * ImportReplacement) and report (report/: ImportOutcomes) — GPD zips, FOCUS files, and extension
 * flows, which turn raw data into a GPD zip. Upload records are UploadsModule's.
 */
@Module({
  imports: [UploadsModule, JobsModule, LineItemsModule, RollupsModule, UploadRowsModule],
  providers: [
    ImportSources,
    ImportReferenceData,
    DiscoveryGate,
    LineItemWriter,
    ImportReplacement,
    ImportOutcomes,
    GpdImportHandler,
    FocusLoader,
    FocusImportHandler,
    FocusImportPartHandler,
    ExtensionFlowHandler,
  ],
})
export class ImportsModule {}
