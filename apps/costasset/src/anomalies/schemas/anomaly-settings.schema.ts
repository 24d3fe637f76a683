import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/**
 * The tenant's detection parameters (a field left out takes its default) and the detection's own
 * bookkeeping: a tenant has a record once it imported data, so that the daily run knows it.
 */
@Schema({ collection: 'anomaly_settings', timestamps: true })
export class AnomalySettings {
  tenantId: string;

  @Prop() minImpact?: number;
  @Prop() minImpactRatio?: number;
  @Prop() minScore?: number;
  @Prop() windowDays?: number;

  /** When line items of the tenant last arrived (an import). */
  @Prop() lastImportAt?: Date;

  createdAt?: Date;
  updatedAt?: Date;
}

export const AnomalySettingsSchema = SchemaFactory.createForClass(AnomalySettings);
AnomalySettingsSchema.plugin(tenantScopedPlugin);
AnomalySettingsSchema.index({ tenantId: 1 }, { unique: true });
