import { Module } from '@nestjs/common';
import { CurrencyModule } from '../currency/currency.module';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemStoreModule } from '../line-items/line-item-store.module';
import { RollupsModule } from '../rollups/rollups.module';
import { AllocatedCosts } from './allocated-costs';
import { AllocationRebuildHandler } from './allocation-rebuild.handler';
import { AllocationStoreModule } from './allocation-store.module';
import { AllocationController } from './allocation.controller';
import { AllocationService } from './allocation.service';
import { ShowbackService } from './showback.service';

/** Cost allocation: activated tag keys and virtual dimensions, answered from the rollups (docs/allocation.md). */
@Module({
  imports: [AllocationStoreModule, RollupsModule, JobsModule, LineItemStoreModule, CurrencyModule],
  controllers: [AllocationController],
  providers: [AllocationService, AllocationRebuildHandler, AllocatedCosts, ShowbackService],
  exports: [AllocatedCosts],
})
export class AllocationModule {}
