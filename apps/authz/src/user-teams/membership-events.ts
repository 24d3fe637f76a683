import { Injectable, Logger } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { PrincipalService } from '../identity/principal.service';

/**
 * Publishes `authz.membership.changed` after a committed change, so that every service drops the
 * cached principals of the tenant (this instance drops its own at once). A NATS failure is logged,
 * never turned into a failed request: the change is already stored, and caches also expire on
 * their own.
 */
@Injectable()
export class MembershipEvents {
  private readonly logger = new Logger('MembershipEvents');

  constructor(
    private readonly bus: MessageBus,
    private readonly principals: PrincipalService,
  ) {}

  async changed(tenantId: string, userIds: string[], teamCodes: string[]): Promise<void> {
    this.principals.forget(tenantId);
    try {
      await this.bus.publish('authz.membership.changed', { tenantId, userIds: unique(userIds), teamCodes: unique(teamCodes) });
    } catch (error) {
      this.logger.warn({ tenantId, err: error }, 'authz.membership.changed not published');
    }
  }
}

const unique = (values: string[]) => [...new Set(values)];
