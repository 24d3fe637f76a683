import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import { REPORT_TEMPLATE_IDS, ReportTemplateId } from '../report-templates';

export const REPORT_SCOPES = ['public', 'private'] as const;
export type ReportScope = (typeof REPORT_SCOPES)[number];

@Schema({ collection: 'report_models', timestamps: true })
export class ReportModel {
  tenantId: string;

  @Prop({ required: true })
  reportModelId: string;

  @Prop({ type: String, required: true, enum: REPORT_TEMPLATE_IDS })
  templateId: ReportTemplateId;

  @Prop({ required: true, default: 'v1' })
  type: string;

  @Prop({ type: String, required: true, enum: REPORT_SCOPES, default: 'public' })
  scope: ReportScope;

  @Prop({ type: [String], default: [] })
  vtags: string[];

  @Prop({ required: true })
  expr: string;

  @Prop({ required: true, default: false })
  append: boolean;

  @Prop({ required: true, default: false })
  saveOutput: boolean;

  @Prop({ required: true })
  createdBy: string;
}

export const ReportModelSchema = SchemaFactory.createForClass(ReportModel);
ReportModelSchema.plugin(tenantScopedPlugin);
ReportModelSchema.index({ tenantId: 1, reportModelId: 1 }, { unique: true });
