import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/**
 * A threshold a budget crossed in a period. The unique index is what makes the
 * `costasset.budget.threshold` event go out once, whichever instance evaluates first.
 */
@Schema({ collection: 'budget_threshold_crossings', timestamps: { createdAt: 'crossedAt', updatedAt: false } })
export class ThresholdCrossing {
  tenantId: string;

  @Prop({ required: true })
  budgetId: string;

  @Prop({ required: true })
  period: string;

  @Prop({ required: true })
  threshold: number;

  @Prop({ required: true })
  percentUsed: number;
}

export const ThresholdCrossingSchema = SchemaFactory.createForClass(ThresholdCrossing);
ThresholdCrossingSchema.plugin(tenantScopedPlugin);
ThresholdCrossingSchema.index({ tenantId: 1, budgetId: 1, period: 1, threshold: 1 }, { unique: true });
