import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** A user known to the platform; created just in time by its first valid token. */
@Schema({ collection: 'users', timestamps: true })
export class User {
  tenantId: string;

  @Prop({ required: true })
  userId: string;

  @Prop()
  lastSeenAt?: Date;
}

export const UserSchema = SchemaFactory.createForClass(User);
UserSchema.plugin(tenantScopedPlugin);
UserSchema.index({ tenantId: 1, userId: 1 }, { unique: true });
