import { Module } from '@nestjs/common';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { RollupsModule } from '../rollups/rollups.module';
import { MongooseModule } from '@nestjs/mongoose';
import { JobsModule } from '../jobs/jobs.module';
import { LineItemsModule } from '../line-items/line-items.module';
import { AccountSummaries } from './account-summaries';
import { DataDeletionHandler } from './data-deletion.handler';
import { DataManagementController } from './data-management.controller';
import { DataManagementService } from './data-management.service';
import { DeletionRequestRepository } from './deletion-request.repository';
import { DELETION_REQUEST, DeletionRequestSchema } from './schemas/deletion-request.schema';

/** Data management (docs/interface.md#administration-admin): deletion requests run as `data-deletion` jobs. */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: DELETION_REQUEST, schema: DeletionRequestSchema }]),
    JobsModule,
    LineItemsModule,
    RollupsModule,
    ResourceGroupsModule,
  ],
  controllers: [DataManagementController],
  providers: [DeletionRequestRepository, DataManagementService, DataDeletionHandler, AccountSummaries],
})
export class DataManagementModule {}
