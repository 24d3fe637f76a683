import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '@lib/core';
import { TenantRepository } from '@lib/persistence';
import { RevocationReason, TokenFamily } from './schemas/token-family.schema';

export interface FamilyOwner {
  userId: string;
  idpId: string;
  /** When the family's last token expires (kept at the latest of the values given). */
  expiresAt: Date;
}

/** Refresh-token families (sessions), by tenant and family id; each spend is one atomic update. */
@Injectable()
export class TokenFamilyRepository extends TenantRepository<TokenFamily> {
  constructor(@InjectModel(TokenFamily.name) model: Model<TokenFamily>) {
    super(model);
  }

  /** Spends a sign-in token by starting its family; false when the family exists (the token was spent or revoked before). */
  async start(tenantId: string, familyId: string, owner: FamilyOwner, nextJti: string): Promise<boolean> {
    try {
      await this.create(tenantId, { familyId, ...owner, currentJti: nextJti });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /**
   * Spends `jti` and makes `nextJti` the family's current token, in one conditional update: of two
   * concurrent spends of one token only one matches. False when `jti` is not the current token or
   * the family is revoked or unknown.
   */
  async rotate(tenantId: string, familyId: string, jti: string, nextJti: string, expiresAt: Date): Promise<boolean> {
    const rotated = await this.findOneAndUpdate(
      tenantId,
      { familyId, currentJti: jti, revokedAt: null },
      { $set: { currentJti: nextJti }, $max: { expiresAt } },
    );
    return rotated !== null;
  }

  /** Revokes a family; a sign-in token revoked before its first use leaves its family revoked from the start. */
  async revoke(tenantId: string, familyId: string, reason: RevocationReason, owner: FamilyOwner): Promise<void> {
    const revokedAt = new Date();
    const revoke = () =>
      this.updateOne(
        tenantId,
        { familyId, revokedAt: null },
        { $set: { revokedAt, revokedFor: reason, currentJti: null }, $max: { expiresAt: owner.expiresAt } },
      );
    if ((await revoke()) > 0) return;
    try {
      await this.create(tenantId, { familyId, ...owner, currentJti: null, revokedAt, revokedFor: reason });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // revoked already, or started meanwhile
      await revoke();
    }
  }

  /** Revokes every live family of a user; the number revoked. */
  revokeAllOf(tenantId: string, user: { userId: string; idpId: string }, reason: RevocationReason): Promise<number> {
    return this.updateMany(
      tenantId,
      { userId: user.userId, idpId: user.idpId, revokedAt: null },
      { $set: { revokedAt: new Date(), revokedFor: reason, currentJti: null } },
    );
  }

  isRevoked(tenantId: string, familyId: string): Promise<boolean> {
    return this.exists(tenantId, { familyId, revokedAt: { $ne: null } });
  }
}
