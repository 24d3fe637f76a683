import { Module } from '@nestjs/common';
import { GpdModule } from '../gpd/gpd.module';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { DiscoveryGate } from './discovery-gate';
import { EnrichmentReferenceData } from './enrichment-reference-data';
import { EnrichmentHandler } from './enrichment.handler';

@Module({
  imports: [GpdModule, JobsModule, LineItemsModule],
  providers: [EnrichmentReferenceData, EnrichmentHandler, DiscoveryGate],
  exports: [EnrichmentReferenceData],
})
export class EnrichmentModule {}
