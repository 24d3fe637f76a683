import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { LineItemsModule } from '../line-items/line-items.module';
import { ResourceGroupsModule } from '../resource-groups/resource-groups.module';
import { RollupsModule } from '../rollups/rollups.module';
import { ReportModelRepository } from './report-model.repository';
import { ReportModelsController } from './report-models.controller';
import { ReportModelsService } from './report-models.service';
import { ReportOutputRepository } from './report-output.repository';
import { ReportModel, ReportModelSchema } from './schemas/report-model.schema';
import { ReportOutput, ReportOutputSchema } from './schemas/report-output.schema';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: ReportModel.name, schema: ReportModelSchema },
      { name: ReportOutput.name, schema: ReportOutputSchema },
    ]),
    LineItemsModule,
    ResourceGroupsModule,
    RollupsModule,
  ],
  controllers: [ReportModelsController],
  providers: [ReportModelRepository, ReportOutputRepository, ReportModelsService],
})
export class ReportModelsModule {}
