import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AuthzEnvironment } from '../authz.environment';
import { MembershipRepository } from './membership.repository';
import { UserRepository } from './user.repository';

/**
 * Users and memberships stored before users were keyed by IdP carry no `idpId`, and their
 * collections hold unique indexes without it (which would refuse the same subject from a second
 * IdP). At start-up, while such an index exists: every record without an IdP is given
 * BOOTSTRAP_ADMIN_IDP (the IdP of the bootstrap admin and of `npm run token`), then the old index is
 * dropped. Idempotent, and safe for several instances starting at once. Before the bootstrap, which
 * runs in `onApplicationBootstrap`.
 */
@Injectable()
export class IdpKeyMigration implements OnModuleInit {
  private readonly logger = new Logger('IdpKeyMigration');

  constructor(
    private readonly env: AuthzEnvironment,
    private readonly users: UserRepository,
    private readonly memberships: MembershipRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    for (const [collection, repository] of [
      ['users', this.users],
      ['memberships', this.memberships],
    ] as const) {
      const legacyIndex = await repository.legacyIndex();
      if (!legacyIndex) continue;
      const assigned = await repository.assignMissingIdp(this.env.BOOTSTRAP_ADMIN_IDP);
      await repository.dropIndex(legacyIndex);
      this.logger.log(
        { collection, assigned, idpId: this.env.BOOTSTRAP_ADMIN_IDP, droppedIndex: legacyIndex },
        'records without an IdP moved to the default IdP',
      );
    }
  }
}
