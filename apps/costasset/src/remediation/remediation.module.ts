import { Module } from '@nestjs/common';
import { RollupsModule } from '../rollups/rollups.module';
import { MongooseModule } from '@nestjs/mongoose';
import { COST_LINE_ITEM, CostLineItemSchema } from '../line-items/schemas/cost-line-item.schema';
import { ProviderMetadataModule } from '../provider-metadata/provider-metadata.module';
import { RemediationController } from './remediation.controller';
import { RemediationRepository } from './remediation.repository';
import { RemediationService } from './remediation.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: COST_LINE_ITEM, schema: CostLineItemSchema }]), ProviderMetadataModule, RollupsModule],
  controllers: [RemediationController],
  providers: [RemediationRepository, RemediationService],
})
export class RemediationModule {}
