import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const RESOURCE_GROUP_TYPES = ['visibility', 'budgetary'] as const;
export type ResourceGroupType = (typeof RESOURCE_GROUP_TYPES)[number];

/**
 * A named slice of the tenant's cost data (docs/interface.md#resource-groups-report-models-budgets).
 * `groupId` is the group's `_id` in the API; the MongoDB `_id` stays internal so that callers may
 * choose readable ids.
 */
@Schema({ collection: 'resource_groups', timestamps: true })
export class ResourceGroup {
  tenantId: string;

  @Prop({ required: true })
  groupId: string;

  @Prop({ type: String, required: true, enum: RESOURCE_GROUP_TYPES })
  type: ResourceGroupType;

  @Prop({ required: true })
  version: number;

  @Prop({ required: true })
  expr: string;

  @Prop({ type: MongooseSchema.Types.Mixed, default: {} })
  context: Record<string, string[]>;

  /** Team codes copied from `context.teams`, indexed for the visibility look-up. */
  @Prop({ type: [String], default: [] })
  teams: string[];
}

export const ResourceGroupSchema = SchemaFactory.createForClass(ResourceGroup);
ResourceGroupSchema.plugin(tenantScopedPlugin);
ResourceGroupSchema.index({ tenantId: 1, groupId: 1 }, { unique: true });
ResourceGroupSchema.index({ tenantId: 1, type: 1, teams: 1 });
