import { Injectable, Logger } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { PrincipalService } from '../identity/principal.service';
import { AuthTypeResolver } from './auth-type.resolver';

export interface AuthTypeChange {
  tenantId: string;
  idpId?: string;
  authTypeId?: string;
  /** Users whose internal memberships changed (placed into INITIAL-SETUP-ADMIN). */
  membershipOf?: { userIds: string[]; teamCodes: string[] };
}

/**
 * docs/interface.md#auth-type-caches: after a configuration or mapping changes, cached configurations are cleared so the next
 * token carries the new auth type. Drops this instance's resolver cache and tells every other
 * instance and service (`authz.config.changed`, and `authz.membership.changed` when a membership
 * was added). Never fails the request: the change is stored already, and the caches' TTL bounds
 * staleness if NATS is down.
 */
@Injectable()
export class AuthTypeChangeNotifier {
  private readonly logger = new Logger('AuthTypeChange');

  constructor(
    private readonly resolver: AuthTypeResolver,
    private readonly bus: MessageBus,
    private readonly principals: PrincipalService,
  ) {}

  async changed(change: AuthTypeChange): Promise<void> {
    this.resolver.forget(change.tenantId);
    this.principals.forget(change.tenantId);
    try {
      await this.bus.publish('authz.config.changed', { tenantId: change.tenantId, idpId: change.idpId, authTypeId: change.authTypeId });
      if (change.membershipOf) await this.bus.publish('authz.membership.changed', { tenantId: change.tenantId, ...change.membershipOf });
    } catch (error) {
      this.logger.warn({ err: error, tenantId: change.tenantId }, 'change event not published');
    }
  }
}
