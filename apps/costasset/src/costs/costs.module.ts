import { Module } from '@nestjs/common';
import { AllocationModule } from '../allocation/allocation.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { RollupsModule } from '../rollups/rollups.module';
import { CostsController } from './costs.controller';
import { CostsService } from './costs.service';

/** The cost explorer API (`GET /api/costasset/v1/costs`). */
@Module({
  imports: [LineItemsModule, ResourceGroupsModule, RollupsModule, AllocationModule],
  controllers: [CostsController],
  providers: [CostsService],
  exports: [CostsService],
})
export class CostsModule {}
