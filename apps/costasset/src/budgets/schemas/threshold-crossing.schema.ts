import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const CROSSING_KINDS = ['actual', 'forecast'] as const;
/** `actual`: the period's cost reached the threshold; `forecast`: its month-end forecast is to exceed it. */
export type CrossingKind = (typeof CROSSING_KINDS)[number];

/** The unique key of crossings before forecast thresholds (no kind): dropped at start-up by CrossingKindMigration. */
export const LEGACY_CROSSING_KEY = { tenantId: 1, budgetId: 1, period: 1, threshold: 1 } as const;

/**
 * A threshold a budget crossed in a period, actual or forecast. The unique index is what makes the
 * `costasset.budget.threshold` event and the notification go out once per budget, period,
 * threshold and kind, whichever instance evaluates first. Records stored before kinds existed
 * carry none and mean `actual` (the start-up migration gives them `kind: 'actual'`).
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

  /** Missing on records of before kinds: read as `actual`. */
  @Prop({ type: String, enum: CROSSING_KINDS })
  kind?: CrossingKind;

  @Prop({ required: true })
  percentUsed: number;

  /** What the notification says, as at the crossing (the figures of a retried notification). */
  @Prop()
  amount?: number;

  @Prop()
  actual?: number;

  @Prop({ type: Number })
  forecast?: number | null;

  @Prop({ type: Number })
  forecastLower?: number | null;

  @Prop({ type: Number })
  forecastUpper?: number | null;

  @Prop()
  currency?: string;

  /**
   * `null` from the crossing until the notifier took the message; set then. A crossing still
   * `null` is notified again by the tenant's next evaluation (the notifier drops a repeated key).
   * Missing on records of before notifications: never notified, never retried.
   */
  @Prop({ type: Date })
  notifiedAt?: Date | null;
}

export const ThresholdCrossingSchema = SchemaFactory.createForClass(ThresholdCrossing);
ThresholdCrossingSchema.plugin(tenantScopedPlugin);
ThresholdCrossingSchema.index({ tenantId: 1, budgetId: 1, period: 1, threshold: 1, kind: 1 }, { unique: true });
// The tenant's crossings whose notification is still to be taken (`notifiedAt: null`).
ThresholdCrossingSchema.index({ tenantId: 1, notifiedAt: 1 });
