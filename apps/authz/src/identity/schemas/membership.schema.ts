import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** An internal membership of a user in a team. */
@Schema({ collection: 'memberships', timestamps: true })
export class Membership {
  tenantId: string;

  @Prop({ required: true })
  userId: string;

  /** The IdP of the user (a user is tenant, IdP and subject). */
  @Prop({ required: true })
  idpId: string;

  @Prop({ required: true })
  teamCode: string;
}

export const MembershipSchema = SchemaFactory.createForClass(Membership);
MembershipSchema.plugin(tenantScopedPlugin);
MembershipSchema.index({ tenantId: 1, userId: 1, idpId: 1, teamCode: 1 }, { unique: true });
MembershipSchema.index({ tenantId: 1, teamCode: 1 });
