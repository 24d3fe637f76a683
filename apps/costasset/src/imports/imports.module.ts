import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { RollupsModule } from '../rollups/rollups.module';
import { UploadsModule } from '../uploads/uploads.module';
import { ExtensionFlowHandler } from './extension-flow/extension-flow.handler';
import { FocusImportHandler } from './focus-import.handler';
import { GpdImportHandler } from './gpd-import.handler';
import { ImportReferenceData } from './map/reference-data';
import { DiscoveryGate } from './rules/discovery-gate';
import { ImportReplacement } from './write/import-replacement';

/**
 * The import pipeline: the jobs that read an upload (read/), map its rows (map/), check them
 * (rules/), write them (write/) and report (report/) — GPD zips, FOCUS files, and extension flows,
 * which turn raw data into a GPD zip. Upload records are UploadsModule's.
 */
@Module({
  imports: [UploadsModule, JobsModule, LineItemsModule, RollupsModule],
  providers: [ImportReferenceData, DiscoveryGate, ImportReplacement, GpdImportHandler, FocusImportHandler, ExtensionFlowHandler],
})
export class ImportsModule {}
