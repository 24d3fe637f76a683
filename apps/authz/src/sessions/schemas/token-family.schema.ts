import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { tenantScopedPlugin } from '@lib/persistence';

/**
 * A session: the family of refresh tokens rotated from one sign-in token. Only `currentJti` may
 * be spent; spending it again revokes the family. Its id is the `jti` of the sign-in token, and
 * every token issued from the family carries it as `sid`.
 */
@Schema({ collection: 'token_families', timestamps: true })
export class TokenFamily {
  tenantId: string;

  @Prop({ required: true })
  familyId: string;

  @Prop({ required: true })
  userId: string;

  @Prop({ required: true })
  idpId: string;

  /** The one refresh token of the family that may still be spent (null once revoked). */
  @Prop({ type: String, default: null })
  currentJti: string | null;

  @Prop({ type: Date })
  revokedAt?: Date;

  @Prop({ type: String, enum: ['sign-out', 'reuse', 'user-disabled'] })
  revokedFor?: RevocationReason;

  /** When the last token of the family expires: the record is of no use after it (TTL index). */
  @Prop({ required: true, type: Date })
  expiresAt: Date;
}

export type RevocationReason = 'sign-out' | 'reuse' | 'user-disabled';

export const TokenFamilySchema = SchemaFactory.createForClass(TokenFamily);
TokenFamilySchema.plugin(tenantScopedPlugin);
TokenFamilySchema.index({ tenantId: 1, familyId: 1 }, { unique: true });
TokenFamilySchema.index({ tenantId: 1, userId: 1 });
TokenFamilySchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
