import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import { FLAG_VALUES, type FlagValue } from '../flag-values';

/** One feature flag of a tenant; the value stays the string `true` / `false` that clients send and read. */
@Schema({ collection: 'feature_flags', timestamps: true })
export class FeatureFlag {
  tenantId: string;

  @Prop({ type: String, required: true })
  key: string;

  @Prop({ type: String, required: true, enum: FLAG_VALUES })
  value: FlagValue;
}

export const FeatureFlagSchema = SchemaFactory.createForClass(FeatureFlag);
FeatureFlagSchema.plugin(tenantScopedPlugin);
FeatureFlagSchema.index({ tenantId: 1, key: 1 }, { unique: true });
