import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { Problems } from '@lib/core';
import { AuditService } from '../audit/audit.service';
import type { UserKey } from '../identity/user-key';
import { UserRepository } from '../identity/user.repository';
import { SessionRevocation } from '../token/session-revocation.service';
import { UserAccessResponse } from './dto/user-access.dto';

/**
 * Disabling a user refuses its tokens (`USER_DISABLED`) and revokes all its sessions, on every
 * instance within a second (`authz.access.revoked`). Enabling lets its tokens through again; the
 * revoked sessions stay revoked, so the user signs in anew.
 */
@Injectable()
export class UserAccessService {
  constructor(
    private readonly users: UserRepository,
    private readonly revocation: SessionRevocation,
    private readonly audit: AuditService,
  ) {}

  async disable(principal: Principal, user: UserKey): Promise<UserAccessResponse> {
    const { tenantId } = principal;
    if (user.userId === principal.userId && user.idpId === principal.idpId) {
      throw Problems.conflict('CANNOT_DISABLE_SELF', 'A System Admin cannot disable itself');
    }
    await this.requireUser(tenantId, user);
    await this.users.updateOne(tenantId, { ...user, disabledAt: null }, { $set: { disabledAt: new Date() } });
    const revoked = await this.revocation.revokeAllOf(tenantId, user, 'user-disabled');
    await this.audit.record(principal, {
      action: 'user.disable',
      resource: 'user',
      resourceId: `${user.userId}@${user.idpId}`,
      after: { disabled: true, revoked_sessions: revoked },
    });
    return { user_id: user.userId, idp_id: user.idpId, disabled: true, revoked_sessions: revoked };
  }

  async enable(principal: Principal, user: UserKey): Promise<UserAccessResponse> {
    const { tenantId } = principal;
    await this.requireUser(tenantId, user);
    await this.users.updateOne(tenantId, { ...user }, { $unset: { disabledAt: 1 } });
    await this.audit.record(principal, {
      action: 'user.enable',
      resource: 'user',
      resourceId: `${user.userId}@${user.idpId}`,
      after: { disabled: false },
    });
    return { user_id: user.userId, idp_id: user.idpId, disabled: false };
  }

  private async requireUser(tenantId: string, user: UserKey): Promise<void> {
    if (!(await this.users.exists(tenantId, { ...user }))) {
      throw Problems.notFound('USER_NOT_FOUND', `User "${user.userId}" of IdP "${user.idpId}" does not exist`);
    }
  }
}
