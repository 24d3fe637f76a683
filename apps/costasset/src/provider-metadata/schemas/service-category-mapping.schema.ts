import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** Asset type of a provider → service category (docs/interface.md#provider-metadata); one per (tenant, provider, asset type). */
@Schema({ collection: 'provider_service_categories', timestamps: true })
export class ServiceCategoryMapping {
  tenantId: string;

  @Prop({ required: true })
  providerName: string;

  @Prop({ required: true })
  assetType: string;

  @Prop({ required: true })
  serviceCategory: string;
}

export const ServiceCategoryMappingSchema = SchemaFactory.createForClass(ServiceCategoryMapping);
ServiceCategoryMappingSchema.plugin(tenantScopedPlugin);
ServiceCategoryMappingSchema.index({ tenantId: 1, providerName: 1, assetType: 1 }, { unique: true });
