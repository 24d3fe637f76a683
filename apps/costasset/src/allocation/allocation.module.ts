import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemStoreModule } from '../line-items/line-item-store.module';
import { RollupsModule } from '../rollups/rollups.module';
import { AllocationRebuildHandler } from './allocation-rebuild.handler';
import { AllocationStoreModule } from './allocation-store.module';
import { AllocationController } from './allocation.controller';
import { AllocationService } from './allocation.service';

/** Cost allocation: activated tag keys and virtual dimensions, answered from the rollups (docs/allocation.md). */
@Module({
  imports: [AllocationStoreModule, RollupsModule, JobsModule, LineItemStoreModule],
  controllers: [AllocationController],
  providers: [AllocationService, AllocationRebuildHandler],
})
export class AllocationModule {}
