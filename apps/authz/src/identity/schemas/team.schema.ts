import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

@Schema({ collection: 'teams', timestamps: true })
export class Team {
  tenantId: string;

  @Prop({ required: true })
  teamCode: string;

  @Prop({ required: true })
  orgCode: string;

  @Prop({ type: [String], default: [] })
  roles: string[];

  /**
   * Group name in the external directory/IdP that stands for this team (hybrid authorization).
   * `externalRefKey` mirrors it, or the team code when there is none, so that one ordinary
   * unique index enforces "an external reference belongs to one team" on any MongoDB.
   */
  @Prop()
  externalRefId?: string;

  @Prop({ required: true })
  externalRefKey: string;
}

export const TeamSchema = SchemaFactory.createForClass(Team);
TeamSchema.plugin(tenantScopedPlugin);
TeamSchema.index({ tenantId: 1, teamCode: 1 }, { unique: true });
TeamSchema.index({ tenantId: 1, externalRefKey: 1 }, { unique: true });
// Hybrid callers' groups are matched to teams by external reference.
TeamSchema.index({ tenantId: 1, externalRefId: 1 });

export const externalRefKey = (team: { teamCode: string; externalRefId?: string }) =>
  team.externalRefId ? `ext:${team.externalRefId}` : `team:${team.teamCode}`;
