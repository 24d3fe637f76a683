import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { LineItemsController } from './line-items.controller';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from './line-items.repository';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { LineItemScope, VisibilityScope } from './line-items.scope';
import { LineItemsService } from './line-items.service';
import { ASSET, AssetSchema } from './schemas/asset.schema';
import { COST_LINE_ITEM, CostLineItemSchema } from './schemas/cost-line-item.schema';
import { UTILIZATION, UtilizationSchema } from './schemas/utilization.schema';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: COST_LINE_ITEM, schema: CostLineItemSchema },
      { name: ASSET, schema: AssetSchema },
      { name: UTILIZATION, schema: UtilizationSchema },
    ]),
    ResourceGroupsModule,
  ],
  controllers: [LineItemsController],
  providers: [
    CostLineItemRepository,
    AssetRepository,
    UtilizationRepository,
    LineItemsService,
    { provide: LineItemScope, useClass: VisibilityScope },
  ],
  exports: [CostLineItemRepository, AssetRepository, UtilizationRepository, LineItemsService],
})
export class LineItemsModule {}
