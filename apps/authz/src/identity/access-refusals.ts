import { Injectable } from '@nestjs/common';
import { Problems } from '@lib/core';
import { TokenFamilyRepository } from '../sessions/token-family.repository';
import type { UserKey } from './user-key';
import { UserRepository } from './user.repository';

/** What refuses a token whose signature and claims are valid: a disabled user, a revoked session. */
@Injectable()
export class AccessRefusals {
  constructor(
    private readonly users: UserRepository,
    private readonly families: TokenFamilyRepository,
  ) {}

  /** 401 `USER_DISABLED` or `TOKEN_REVOKED`; tokens without a session (`npm run token`) are checked for the user only. */
  async check(tenantId: string, user: UserKey, sessionId?: string): Promise<void> {
    const [disabled, revoked] = await Promise.all([
      this.users.exists(tenantId, { ...user, disabledAt: { $ne: null } }),
      sessionId ? this.families.isRevoked(tenantId, sessionId) : false,
    ]);
    if (disabled) throw Problems.unauthorized('USER_DISABLED', 'This user is disabled: a System Admin of the tenant can enable it again');
    if (revoked)
      throw Problems.unauthorized(
        'TOKEN_REVOKED',
        'The session of this token was revoked (signed out, or a refresh token was reused): sign in again',
      );
  }
}
