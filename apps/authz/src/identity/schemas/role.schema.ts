import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

@Schema({ collection: 'roles', timestamps: true })
export class Role {
  tenantId: string;

  @Prop({ required: true })
  name: string;
}

export const RoleSchema = SchemaFactory.createForClass(Role);
RoleSchema.plugin(tenantScopedPlugin);
RoleSchema.index({ tenantId: 1, name: 1 }, { unique: true });
