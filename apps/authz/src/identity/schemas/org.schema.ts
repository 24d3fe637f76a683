import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

@Schema({ collection: 'orgs', timestamps: true })
export class Org {
  tenantId: string;

  @Prop({ required: true })
  orgCode: string;
}

export const OrgSchema = SchemaFactory.createForClass(Org);
OrgSchema.plugin(tenantScopedPlugin);
OrgSchema.index({ tenantId: 1, orgCode: 1 }, { unique: true });
