import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { assertCallerIdp, type Principal } from '@lib/auth';
import { duplicateKeyFields } from '@lib/core';
import { AuditService } from '../audit/audit.service';
import { INITIAL_ADMIN_ORG, INITIAL_ADMIN_TEAM } from '../identity/bootstrap.service';
import { AuthTypeChangeNotifier } from './auth-type-change.notifier';
import { AuthTypeConfigurationRepository } from './auth-type-configuration.repository';
import { AuthTypeProblems } from './auth-type.problems';
import { Compensation } from './compensation';
import {
  AuthTypeConfigurationResponse,
  CreateAuthTypeConfigurationRequest,
  ListAuthTypeConfigurationsQuery,
  UpdateAuthTypeConfigurationRequest,
} from './dto/auth-type-configuration.dto';
import { assertExternalRefChangeAllowed } from './hybrid-rules';
import { HybridAdminTeamService } from './hybrid-admin-team.service';
import { IdpMappingRepository } from './idp-mapping.repository';
import { AuthTypeConfiguration, CASE_INSENSITIVE } from './schemas/auth-type-configuration.schema';
import { generateTeamCode } from './team-code';

export const CONFIGURATION_RESOURCE = 'authtype_configuration';
const INTERNAL_SINGLETON = 'internal';
const GENERATED_CODE_ATTEMPTS = 3;

type Caller = Principal;
type StoredConfiguration = AuthTypeConfiguration & { _id: unknown };

/** Maps a duplicate key of the configurations collection to its problem. */
function configurationConflict(error: unknown): unknown {
  const fields = duplicateKeyFields(error);
  if (fields?.includes('name')) return AuthTypeProblems.nameTaken();
  if (fields?.includes('singletonKey')) return AuthTypeProblems.internalExists();
  return error;
}

/** Auth-type configurations: docs/interface.md#auth-type-configurations-and-idp-mappings-admin. */
@Injectable()
export class AuthTypeConfigurationService {
  private readonly logger = new Logger('AuthTypeConfiguration');

  constructor(
    private readonly configurations: AuthTypeConfigurationRepository,
    private readonly mappings: IdpMappingRepository,
    private readonly adminTeams: HybridAdminTeamService,
    private readonly notifier: AuthTypeChangeNotifier,
    private readonly audit: AuditService,
  ) {}

  async list(tenantId: string, query: ListAuthTypeConfigurationsQuery): Promise<AuthTypeConfigurationResponse[]> {
    const filter: Partial<Pick<AuthTypeConfiguration, 'name' | 'auth_type'>> = {};
    if (query.name !== undefined) filter.name = query.name;
    if (query.auth_type !== undefined) filter.auth_type = query.auth_type;
    // The collation of the unique name index: case-insensitive equality answered by the index.
    const found = await this.configurations.find(tenantId, filter, { collation: CASE_INSENSITIVE, sort: { _id: 1 } });
    return found.map((doc) => AuthTypeConfigurationResponse.from(doc));
  }

  async get(tenantId: string, id: string): Promise<AuthTypeConfigurationResponse> {
    return AuthTypeConfigurationResponse.from(await this.require(tenantId, id));
  }

  /**
   * Claims the configuration first (its unique indexes decide name and "one internal" races),
   * then, for hybrid, the org when missing and the new team (unique team code and external
   * reference). Any failure takes back what this request wrote.
   */
  async create(caller: Caller, body: CreateAuthTypeConfigurationRequest): Promise<AuthTypeConfigurationResponse> {
    const { tenantId } = caller;
    const undo = new Compensation(this.logger);
    const hybrid = body.auth_type === 'hybrid';
    const generated = hybrid && !body.initial_system_admin_team_code;
    let teamCode = hybrid ? (body.initial_system_admin_team_code ?? generateTeamCode(body.name)) : undefined;
    const orgCode = hybrid ? (body.initial_system_admin_org_code ?? INITIAL_ADMIN_ORG) : undefined;
    try {
      let created: StoredConfiguration;
      try {
        created = await this.configurations.create(tenantId, {
          name: body.name,
          auth_type: body.auth_type,
          ...(hybrid
            ? {
                initial_system_admin_team_external_ref_id: body.initial_system_admin_team_external_ref_id,
                initial_system_admin_team_code: teamCode,
                initial_system_admin_org_code: orgCode,
              }
            : {}),
          singletonKey: hybrid ? `hybrid:${randomUUID()}` : INTERNAL_SINGLETON,
        });
      } catch (error) {
        throw configurationConflict(error);
      }
      const id = created._id;
      undo.add('delete configuration', () => this.configurations.deleteOne(tenantId, { _id: id }));

      if (hybrid && teamCode && orgCode && body.initial_system_admin_team_external_ref_id) {
        for (let attempt = 1; ; attempt += 1) {
          try {
            await this.adminTeams.createTeam(
              tenantId,
              { teamCode, orgCode, externalRef: body.initial_system_admin_team_external_ref_id },
              undo,
            );
            break;
          } catch (error) {
            // A generated code that happens to exist: draw another one.
            if (!generated || attempt >= GENERATED_CODE_ATTEMPTS || (error as { code?: string }).code !== 'TEAM_CODE_TAKEN') throw error;
            teamCode = generateTeamCode(body.name);
            created = { ...created, initial_system_admin_team_code: teamCode };
            await this.configurations.updateOne(tenantId, { _id: id }, { $set: { initial_system_admin_team_code: teamCode } });
          }
        }
      }
      const response = AuthTypeConfigurationResponse.from(created);
      await this.audit.record(caller, { action: 'create', resource: CONFIGURATION_RESOURCE, resourceId: response.id, after: response });
      return response;
    } catch (error) {
      await undo.run();
      throw error;
    } finally {
      await this.notifier.changed({ tenantId });
    }
  }

  /**
   * Internal body `{ name }`; hybrid body `{ name?, initial_system_admin_team_external_ref_id? }`.
   * A mapped configuration may only be changed by a caller of the mapped IdP. The name is claimed
   * first (unique index), then the external reference moves on the admin team (unique index);
   * a failure restores both.
   */
  async update(caller: Caller, id: string, body: UpdateAuthTypeConfigurationRequest): Promise<AuthTypeConfigurationResponse> {
    const { tenantId } = caller;
    const current = await this.require(tenantId, id);
    const mapping = await this.mappings.findOne(tenantId, { auth_type_id: String(current._id) });
    if (mapping) assertCallerIdp(caller, mapping.idp_id);

    const newRef = body.initial_system_admin_team_external_ref_id;
    if (current.auth_type === 'internal') {
      if (newRef !== undefined) {
        throw AuthTypeProblems.invalidForAuthType(
          'initial_system_admin_team_external_ref_id',
          'initial_system_admin_team_external_ref_id is only allowed for a hybrid configuration',
        );
      }
      if (body.name === undefined)
        throw AuthTypeProblems.invalidForAuthType('name', 'name is required to update an internal configuration');
    } else if (body.name === undefined && newRef === undefined) {
      throw AuthTypeProblems.invalidForAuthType('name', 'give name or initial_system_admin_team_external_ref_id (or both)');
    }

    const changes: Partial<Pick<AuthTypeConfiguration, 'name' | 'initial_system_admin_team_external_ref_id'>> = {};
    if (body.name !== undefined && body.name !== current.name) changes.name = body.name;
    if (newRef !== undefined) {
      const adminRefs = await this.adminTeams.systemAdminRefsAmong(tenantId, caller.groups);
      assertExternalRefChangeAllowed({ tokenGroups: caller.groups, newExternalRef: newRef, systemAdminTeamRefs: adminRefs });
      if (newRef !== current.initial_system_admin_team_external_ref_id) changes.initial_system_admin_team_external_ref_id = newRef;
    }
    if (Object.keys(changes).length === 0) return AuthTypeConfigurationResponse.from(current);

    const undo = new Compensation(this.logger);
    try {
      let updated: StoredConfiguration | null;
      try {
        updated = await this.configurations.findOneAndUpdate(tenantId, { _id: current._id }, { $set: changes });
      } catch (error) {
        throw configurationConflict(error);
      }
      if (!updated) throw AuthTypeProblems.configurationNotFound();
      const previous = Object.fromEntries(Object.keys(changes).map((field) => [field, current[field as keyof typeof changes]]));
      undo.add('restore configuration', () => this.configurations.updateOne(tenantId, { _id: current._id }, { $set: previous }));

      if (changes.initial_system_admin_team_external_ref_id && current.initial_system_admin_team_code) {
        const spec = {
          teamCode: current.initial_system_admin_team_code,
          orgCode: current.initial_system_admin_org_code ?? INITIAL_ADMIN_ORG,
          externalRef: changes.initial_system_admin_team_external_ref_id,
        };
        const moved = await this.adminTeams.moveExternalRef(tenantId, spec.teamCode, spec.externalRef, undo);
        if (!moved) await this.adminTeams.createTeam(tenantId, spec, undo);
      }
      const before = AuthTypeConfigurationResponse.from(current);
      const after = AuthTypeConfigurationResponse.from(updated);
      await this.audit.record(caller, { action: 'update', resource: CONFIGURATION_RESOURCE, resourceId: after.id, before, after });
      return after;
    } catch (error) {
      await undo.run();
      throw error;
    } finally {
      await this.notifier.changed({ tenantId, idpId: mapping?.idp_id, authTypeId: String(current._id) });
    }
  }

  /**
   * docs/interface.md#switching-to-internal: deleting is switching to internal. The mapping that uses the configuration
   * goes too; when the configuration was hybrid, the caller is placed into INITIAL-SETUP-ADMIN
   * first (so that it is never locked out). The admin team of a hybrid configuration is kept.
   */
  async remove(caller: Caller, id: string): Promise<void> {
    const { tenantId } = caller;
    const current = await this.require(tenantId, id);
    const authTypeId = String(current._id);
    const mapping = await this.mappings.findOne(tenantId, { auth_type_id: authTypeId });
    if (mapping) assertCallerIdp(caller, mapping.idp_id);

    const undo = new Compensation(this.logger);
    let placed = false;
    try {
      if (current.auth_type === 'hybrid') placed = await this.adminTeams.placeInInitialAdminTeam(caller, undo);
      const deleted = await this.configurations.findOneAndDelete(tenantId, { _id: current._id });
      if (!deleted) throw AuthTypeProblems.configurationNotFound();
      undo.add('restore configuration', () => this.configurations.create(tenantId, deleted));
      const deletedMapping = await this.mappings.findOneAndDelete(tenantId, { auth_type_id: authTypeId });
      if (deletedMapping) {
        undo.add('restore mapping', () =>
          this.mappings.create(tenantId, { idp_id: deletedMapping.idp_id, auth_type_id: deletedMapping.auth_type_id }),
        );
      }
      await this.audit.record(caller, {
        action: 'delete',
        resource: CONFIGURATION_RESOURCE,
        resourceId: authTypeId,
        before: { ...AuthTypeConfigurationResponse.from(current), mapped_idp_id: deletedMapping?.idp_id },
        after: placed ? { placed_in_team: INITIAL_ADMIN_TEAM, user_id: caller.userId } : undefined,
      });
    } catch (error) {
      await undo.run();
      placed = false;
      throw error;
    } finally {
      await this.notifier.changed({
        tenantId,
        idpId: mapping?.idp_id,
        authTypeId,
        membershipOf: placed ? { userIds: [caller.userId], teamCodes: [INITIAL_ADMIN_TEAM] } : undefined,
      });
    }
  }

  private async require(tenantId: string, id: string): Promise<StoredConfiguration> {
    const found = await this.configurations.findById(tenantId, id);
    if (!found) throw AuthTypeProblems.configurationNotFound();
    return found;
  }
}
