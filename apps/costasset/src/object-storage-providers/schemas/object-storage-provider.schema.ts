import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/** An object-storage provider (docs/interface.md#object-storage-providers), addressed by its code within the tenant. */
@Schema({ collection: 'object_storage_providers', timestamps: true })
export class ObjectStorageProvider {
  tenantId: string;

  @Prop({ required: true })
  providerName: string;

  @Prop({ required: true })
  providerCode: string;

  createdAt?: Date;
  updatedAt?: Date;
}

export const ObjectStorageProviderSchema = SchemaFactory.createForClass(ObjectStorageProvider);
ObjectStorageProviderSchema.plugin(tenantScopedPlugin);
ObjectStorageProviderSchema.index({ tenantId: 1, providerCode: 1 }, { unique: true });
