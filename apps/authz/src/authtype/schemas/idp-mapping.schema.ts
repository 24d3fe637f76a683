import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** One IdP ↔ one auth-type configuration (docs/interface.md#idp-mappings). An IdP without a mapping is `internal`. */
@Schema({ collection: 'idp_mappings', timestamps: true })
export class IdpMapping {
  tenantId: string;

  @Prop({ required: true })
  idp_id: string;

  @Prop({ required: true })
  auth_type_id: string;
}

export const IdpMappingSchema = SchemaFactory.createForClass(IdpMapping);
IdpMappingSchema.plugin(tenantScopedPlugin);
IdpMappingSchema.index({ tenantId: 1, idp_id: 1 }, { unique: true });
IdpMappingSchema.index({ tenantId: 1, auth_type_id: 1 }, { unique: true });
