import { Injectable, Logger } from '@nestjs/common';
import type { TokenClaims } from '@lib/auth';
import { MessageBus } from '@lib/messaging';
import { PrincipalService } from '../identity/principal.service';
import type { UserKey } from '../identity/user-key';
import { RevocationReason } from '../sessions/schemas/token-family.schema';
import { TokenFamilyRepository } from '../sessions/token-family.repository';

/** The session (family) a refresh token belongs to: its `sid`, or its own `jti` for a sign-in token. */
export const familyOf = (claims: Pick<TokenClaims, 'sid' | 'jti'>): string | undefined => claims.sid ?? claims.jti;

/**
 * Revokes sessions and tells every instance of every service to drop the user's cached
 * principals (`authz.access.revoked`; this instance drops its own at once), so that the next
 * request of a revoked token is checked against the store and refused.
 */
@Injectable()
export class SessionRevocation {
  private readonly logger = new Logger('SessionRevocation');

  constructor(
    private readonly families: TokenFamilyRepository,
    private readonly principals: PrincipalService,
    private readonly bus: MessageBus,
  ) {}

  /** Revokes the session of a verified refresh token. */
  async revokeFamilyOf(claims: TokenClaims, reason: RevocationReason): Promise<void> {
    const familyId = familyOf(claims);
    if (!familyId) return;
    await this.families.revoke(claims.tid, familyId, reason, {
      userId: claims.sub,
      idpId: claims.idp,
      expiresAt: new Date((claims.exp ?? 0) * 1000),
    });
    await this.announce(claims.tid, claims.sub);
  }

  /** Revokes every session of a user; the number revoked. */
  async revokeAllOf(tenantId: string, user: UserKey, reason: RevocationReason): Promise<number> {
    const revoked = await this.families.revokeAllOf(tenantId, user, reason);
    await this.announce(tenantId, user.userId);
    return revoked;
  }

  /** A NATS failure is logged, never a failed request: the revocation is stored, and caches also expire on their own. */
  async announce(tenantId: string, userId: string): Promise<void> {
    this.principals.forgetUser(tenantId, userId);
    try {
      await this.bus.publish('authz.access.revoked', { tenantId, userId });
    } catch (error) {
      this.logger.warn({ tenantId, err: error }, 'authz.access.revoked not published');
    }
  }
}
