import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** A saved execution (`saveOutput`); with `append` every run is kept, otherwise only the last. */
@Schema({ collection: 'report_outputs', timestamps: { createdAt: 'generatedAt', updatedAt: false } })
export class ReportOutput {
  tenantId: string;

  @Prop({ required: true })
  reportModelId: string;

  @Prop({ required: true })
  templateId: string;

  @Prop({ type: MongooseSchema.Types.Mixed, default: {} })
  params: Record<string, string>;

  @Prop({ required: true })
  currency: string;

  @Prop({ type: [MongooseSchema.Types.Mixed], default: [] })
  rows: Record<string, unknown>[];

  @Prop({ required: true })
  total: number;

  @Prop({ required: true })
  executedBy: string;

  /**
   * The visibility groups the rows were computed within (the runner's); `null` for a System Admin's
   * run, and read as `null` when absent (older outputs): only System Admins see those.
   */
  @Prop({ type: [String], default: null })
  visibilityGroupIds?: string[] | null;

  generatedAt?: Date;
}

export const ReportOutputSchema = SchemaFactory.createForClass(ReportOutput);
ReportOutputSchema.plugin(tenantScopedPlugin);
ReportOutputSchema.index({ tenantId: 1, reportModelId: 1, generatedAt: -1 });
// Housekeeping expires a tenant's outputs by age.
ReportOutputSchema.index({ tenantId: 1, generatedAt: 1 });
