import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { COST_DATA_MANAGER_ROLE, SYSTEM_ADMIN_ROLE } from '@lib/auth';
import { isDuplicateKey } from '@lib/core';
import { AuthzEnvironment } from '../authz.environment';
import { externalRefKey } from './schemas/team.schema';
import { MembershipRepository } from './membership.repository';
import { OrgRepository } from './org.repository';
import { RoleRepository } from './role.repository';
import { TeamRepository } from './team.repository';
import { UserRepository } from './user.repository';
import type { UserKey } from './user-key';

export const INITIAL_ADMIN_TEAM = 'INITIAL-SETUP-ADMIN';
export const INITIAL_ADMIN_ORG = 'admin_org';

/**
 * docs/decisions.md#tokens: each bootstrap tenant gets, idempotently, the System Admin role, org `admin_org`,
 * team `INITIAL-SETUP-ADMIN` holding the role, and the bootstrap admin (`BOOTSTRAP_ADMIN` of
 * `BOOTSTRAP_ADMIN_IDP`) in that team. Upserts make
 * concurrent starts of several instances safe.
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly env: AuthzEnvironment,
    private readonly roles: RoleRepository,
    private readonly orgs: OrgRepository,
    private readonly teams: TeamRepository,
    private readonly users: UserRepository,
    private readonly memberships: MembershipRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const tenants = this.env.BOOTSTRAP_TENANTS.split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const admin = { userId: this.env.BOOTSTRAP_ADMIN, idpId: this.env.BOOTSTRAP_ADMIN_IDP };
    for (const tenantId of tenants) await this.bootstrapTenant(tenantId, admin);
    this.logger.log(`bootstrapped tenants: ${tenants.join(', ')}`);
  }

  /** The admin is a user of one IdP (BOOTSTRAP_ADMIN_IDP): the same subject from another IdP of the tenant is someone else. */
  async bootstrapTenant(tenantId: string, admin: UserKey): Promise<void> {
    await this.ensureAdminTeam(tenantId);
    await this.upsertIgnoringRace(() => this.users.updateOne(tenantId, { ...admin }, { $setOnInsert: { ...admin } }, { upsert: true }));
    await this.memberships.add(tenantId, { ...admin, teamCode: INITIAL_ADMIN_TEAM });
  }

  /** The System Admin and Cost Data Manager roles, `admin_org` and the `INITIAL-SETUP-ADMIN` team holding System Admin. */
  async ensureAdminTeam(tenantId: string): Promise<void> {
    for (const name of [SYSTEM_ADMIN_ROLE, COST_DATA_MANAGER_ROLE]) {
      await this.upsertIgnoringRace(() => this.roles.updateOne(tenantId, { name }, { $setOnInsert: { name } }, { upsert: true }));
    }
    await this.upsertIgnoringRace(() =>
      this.orgs.updateOne(tenantId, { orgCode: INITIAL_ADMIN_ORG }, { $setOnInsert: { orgCode: INITIAL_ADMIN_ORG } }, { upsert: true }),
    );
    await this.upsertIgnoringRace(() =>
      this.teams.updateOne(
        tenantId,
        { teamCode: INITIAL_ADMIN_TEAM },
        {
          $setOnInsert: {
            teamCode: INITIAL_ADMIN_TEAM,
            orgCode: INITIAL_ADMIN_ORG,
            externalRefKey: externalRefKey({ teamCode: INITIAL_ADMIN_TEAM }),
          },
          $addToSet: { roles: SYSTEM_ADMIN_ROLE },
        },
        { upsert: true },
      ),
    );
  }

  /** Two instances upserting the same key at once: one wins, the other's duplicate key means "already there". */
  private async upsertIgnoringRace(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
}
