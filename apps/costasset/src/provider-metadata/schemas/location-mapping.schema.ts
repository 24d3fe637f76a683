import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** Provider region code → location (docs/interface.md#provider-metadata); one per (tenant, provider, region code). */
@Schema({ collection: 'provider_locations', timestamps: true })
export class LocationMappingRecord {
  tenantId: string;

  @Prop({ required: true })
  providerName: string;

  @Prop({ required: true })
  providerRegionCode: string;

  @Prop()
  dataCenter?: string;

  @Prop()
  url?: string;

  @Prop()
  region?: string;

  @Prop()
  subregion?: string;

  @Prop()
  location?: string;

  @Prop()
  state?: string;

  @Prop()
  country?: string;
}

export const LocationMappingSchema = SchemaFactory.createForClass(LocationMappingRecord);
LocationMappingSchema.plugin(tenantScopedPlugin);
LocationMappingSchema.index({ tenantId: 1, providerName: 1, providerRegionCode: 1 }, { unique: true });
