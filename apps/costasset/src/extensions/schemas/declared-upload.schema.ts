import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/**
 * The size declared when the upload URL of an extension or raw-data zip was asked for. Those
 * uploads have no record of their own, and the object key is reused for each upload of the same
 * file name: the latest request for a URL of a key decides (one without a size removes it).
 */
@Schema({ collection: 'declared_uploads', timestamps: true, versionKey: false })
export class DeclaredUpload {
  tenantId: string;

  /** The object key, with the tenant prefix. */
  @Prop({ required: true })
  key: string;

  @Prop({ required: true })
  declaredBytes: number;
}

export const DeclaredUploadSchema = SchemaFactory.createForClass(DeclaredUpload);
DeclaredUploadSchema.plugin(tenantScopedPlugin);
DeclaredUploadSchema.index({ tenantId: 1, key: 1 }, { unique: true });
