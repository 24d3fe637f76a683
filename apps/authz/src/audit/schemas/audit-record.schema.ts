import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** Who changed what, when, with the state before and after (secrets masked). */
@Schema({ collection: 'audit_records', timestamps: { createdAt: 'at', updatedAt: false } })
export class AuditRecord {
  tenantId: string;

  @Prop({ required: true })
  actor: string;

  @Prop({ required: true })
  action: string;

  @Prop({ required: true })
  resource: string;

  @Prop()
  resourceId?: string;

  @Prop({ type: MongooseSchema.Types.Mixed })
  before?: unknown;

  @Prop({ type: MongooseSchema.Types.Mixed })
  after?: unknown;

  at?: Date;
}

export const AuditRecordSchema = SchemaFactory.createForClass(AuditRecord);
AuditRecordSchema.plugin(tenantScopedPlugin);
// The audit log is paged newest first by _id, optionally filtered by resource and action.
AuditRecordSchema.index({ tenantId: 1, _id: -1 });
