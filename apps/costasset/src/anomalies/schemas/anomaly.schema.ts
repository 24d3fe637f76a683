import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

export const ANOMALY_STATUSES = ['open', 'acknowledged', 'dismissed'] as const;
export type AnomalyStatus = (typeof ANOMALY_STATUSES)[number];

/**
 * A day on which a daily cost series rose above what its recent history predicts
 * (docs/anomalies.md). Unique per tenant, series and day: a later run updates the figures of an
 * open one and never touches an acknowledged or dismissed one.
 */
@Schema({ collection: 'cost_anomalies', timestamps: true, minimize: false })
export class Anomaly {
  tenantId: string;

  /** The series' dimensions (dimension → value, `null` when the line items have none), as line-item fields. */
  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  dimensions: Record<string, string | null>;

  /** `dimensions` in one canonical string (entries sorted by dimension): the unique key of the series. */
  @Prop({ required: true })
  seriesKey: string;

  /** The UTC day, `YYYY-MM-DD`. */
  @Prop({ required: true })
  day: string;

  @Prop({ required: true })
  expected: number;

  @Prop({ required: true })
  actual: number;

  @Prop({ required: true })
  impact: number;

  @Prop({ required: true })
  score: number;

  @Prop({ type: String, required: true, enum: ANOMALY_STATUSES })
  status: AnomalyStatus;

  /** The run that last scored it (an open one's figures follow the latest run). */
  @Prop({ required: true })
  detectionRunId: string;

  /** The run that found it first: that run's message announced it. */
  @Prop({ required: true })
  firstRunId: string;

  createdAt?: Date;
  updatedAt?: Date;
}

export const AnomalySchema = SchemaFactory.createForClass(Anomaly);
AnomalySchema.plugin(tenantScopedPlugin);
AnomalySchema.index({ tenantId: 1, seriesKey: 1, day: 1 }, { unique: true });
// The list: by day range (and status), newest first.
AnomalySchema.index({ tenantId: 1, day: 1, status: 1 });
// The message of a run: what it found first.
AnomalySchema.index({ tenantId: 1, firstRunId: 1 });
