import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from './line-items.repository';
import { ASSET, AssetSchema } from './schemas/asset.schema';
import { COST_LINE_ITEM, CostLineItemSchema } from './schemas/cost-line-item.schema';
import { UTILIZATION, UtilizationSchema } from './schemas/utilization.schema';

/**
 * The collections of enriched data and their repositories, apart from the line-item API: the
 * rollups read the line items, and the API reads the rollups (LineItemsModule imports both).
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: COST_LINE_ITEM, schema: CostLineItemSchema },
      { name: ASSET, schema: AssetSchema },
      { name: UTILIZATION, schema: UtilizationSchema },
    ]),
  ],
  providers: [CostLineItemRepository, AssetRepository, UtilizationRepository],
  exports: [CostLineItemRepository, AssetRepository, UtilizationRepository],
})
export class LineItemStoreModule {}
