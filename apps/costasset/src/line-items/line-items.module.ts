import { Module } from '@nestjs/common';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { RollupsModule } from '../rollups/rollups.module';
import { LineItemStoreModule } from './line-item-store.module';
import { LineItemsController } from './line-items.controller';
import { LineItemScope, VisibilityScope } from './line-items.scope';
import { LineItemsService } from './line-items.service';

@Module({
  imports: [LineItemStoreModule, ResourceGroupsModule, RollupsModule],
  controllers: [LineItemsController],
  providers: [LineItemsService, { provide: LineItemScope, useClass: VisibilityScope }],
  exports: [LineItemStoreModule, LineItemsService],
})
export class LineItemsModule {}
