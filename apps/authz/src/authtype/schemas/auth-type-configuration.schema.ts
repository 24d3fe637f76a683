import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import type { AuthType } from '@lib/auth';
import { tenantScopedPlugin } from '@lib/persistence';

export const CASE_INSENSITIVE = { locale: 'en', strength: 2 } as const;

@Schema({ collection: 'authtype_configurations', timestamps: true })
export class AuthTypeConfiguration {
  tenantId: string;

  @Prop({ required: true })
  name: string;

  @Prop({ type: String, required: true, enum: ['internal', 'hybrid'] })
  auth_type: AuthType;

  @Prop()
  initial_system_admin_team_external_ref_id?: string;

  @Prop()
  initial_system_admin_team_code?: string;

  @Prop()
  initial_system_admin_org_code?: string;

  /** `internal` for the internal configuration, a unique value otherwise: one unique index keeps "only one internal". */
  @Prop({ required: true })
  singletonKey: string;
}

export const AuthTypeConfigurationSchema = SchemaFactory.createForClass(AuthTypeConfiguration);
AuthTypeConfigurationSchema.plugin(tenantScopedPlugin);
AuthTypeConfigurationSchema.index({ tenantId: 1, name: 1 }, { unique: true, collation: CASE_INSENSITIVE });
AuthTypeConfigurationSchema.index({ tenantId: 1, singletonKey: 1 }, { unique: true });
