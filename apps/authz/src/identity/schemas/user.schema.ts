import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/**
 * A user known to the platform; created just in time by its first valid token. A user is its
 * subject as one IdP asserts it: two IdPs of a tenant may both have a subject `admin`.
 */
@Schema({ collection: 'users', timestamps: true })
export class User {
  tenantId: string;

  @Prop({ required: true })
  userId: string;

  @Prop({ required: true })
  idpId: string;

  @Prop()
  lastSeenAt?: Date;

  /** Set while a System Admin has disabled the user: its tokens are refused, its sessions revoked. */
  @Prop({ type: Date })
  disabledAt?: Date;
}

export const UserSchema = SchemaFactory.createForClass(User);
UserSchema.plugin(tenantScopedPlugin);
UserSchema.index({ tenantId: 1, userId: 1, idpId: 1 }, { unique: true });
