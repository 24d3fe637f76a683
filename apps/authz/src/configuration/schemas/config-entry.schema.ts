import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { tenantScopedPlugin } from '@lib/persistence';
import type { ConfigValue } from '../config-keys';

/** One configuration value of a tenant. Secrets inside `value` (the `_ldap_config` password) are stored sealed. */
@Schema({ collection: 'config_values', timestamps: true, minimize: false })
export class ConfigEntry {
  tenantId: string;

  @Prop({ type: String, required: true })
  key: string;

  /** A string, an array of strings, or an object for the structured keys (`_ldap_config`, `CURRENCY_EXCHANGE_RATES`). */
  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  value: ConfigValue;
}

export const ConfigEntrySchema = SchemaFactory.createForClass(ConfigEntry);
ConfigEntrySchema.plugin(tenantScopedPlugin);
ConfigEntrySchema.index({ tenantId: 1, key: 1 }, { unique: true });
