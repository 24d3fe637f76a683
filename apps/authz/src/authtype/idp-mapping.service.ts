import { Injectable, Logger } from '@nestjs/common';
import { assertCallerIdp, type Principal } from '@lib/auth';
import { duplicateKeyFields } from '@lib/core';
import { AuditService } from '../audit/audit.service';
import { INITIAL_ADMIN_ORG, INITIAL_ADMIN_TEAM } from '../identity/bootstrap.service';
import { AuthTypeChangeNotifier } from './auth-type-change.notifier';
import { AuthTypeConfigurationRepository } from './auth-type-configuration.repository';
import { AuthTypeProblems } from './auth-type.problems';
import { Compensation } from './compensation';
import { CreateIdpMappingRequest, IdpMappingResponse, UpdateIdpMappingRequest } from './dto/idp-mapping.dto';
import { HybridAdminTeamService } from './hybrid-admin-team.service';
import { IdpMappingRepository } from './idp-mapping.repository';
import type { AuthTypeConfiguration } from './schemas/auth-type-configuration.schema';

export const MAPPING_RESOURCE = 'idp_mapping';

type StoredConfiguration = AuthTypeConfiguration & { _id: unknown };

function mappingConflict(error: unknown): unknown {
  const fields = duplicateKeyFields(error);
  if (fields?.includes('idp_id')) return AuthTypeProblems.idpAlreadyMapped();
  if (fields?.includes('auth_type_id')) return AuthTypeProblems.authTypeAlreadyMapped();
  return error;
}

const responseOf = (idpId: string, configuration: StoredConfiguration): IdpMappingResponse => ({
  idp_id: idpId,
  auth_type_id: String(configuration._id),
  auth_type: configuration.auth_type,
});

/**
 * IdP ↔ auth-type mappings (one per IdP, one per configuration: unique indexes), with the rules of
 * docs/interface.md#idp-mappings. Every change clears the auth-type caches.
 */
@Injectable()
export class IdpMappingService {
  private readonly logger = new Logger('IdpMapping');

  constructor(
    private readonly mappings: IdpMappingRepository,
    private readonly configurations: AuthTypeConfigurationRepository,
    private readonly adminTeams: HybridAdminTeamService,
    private readonly notifier: AuthTypeChangeNotifier,
    private readonly audit: AuditService,
  ) {}

  /** `idp_id` defaults to the caller's IdP and must equal it when given. */
  async create(caller: Principal, body: CreateIdpMappingRequest): Promise<IdpMappingResponse> {
    const { tenantId } = caller;
    const idpId = body.idp_id ?? caller.idpId;
    assertCallerIdp(caller, idpId);
    const configuration = await this.requireConfiguration(tenantId, body.auth_type_id);
    const authTypeId = String(configuration._id);

    const undo = new Compensation(this.logger);
    try {
      let mapping;
      try {
        mapping = await this.mappings.create(tenantId, { idp_id: idpId, auth_type_id: authTypeId });
      } catch (error) {
        throw mappingConflict(error);
      }
      const mappingId = mapping._id;
      undo.add('delete mapping', () => this.mappings.deleteOne(tenantId, { _id: mappingId }));
      await this.verifyHybrid(tenantId, configuration, undo);
      const response = responseOf(idpId, configuration);
      await this.audit.record(caller, { action: 'create', resource: MAPPING_RESOURCE, resourceId: idpId, after: response });
      return response;
    } catch (error) {
      await undo.run();
      throw error;
    } finally {
      await this.notifier.changed({ tenantId, idpId, authTypeId });
    }
  }

  async update(caller: Principal, idpId: string, body: UpdateIdpMappingRequest): Promise<IdpMappingResponse> {
    const { tenantId } = caller;
    assertCallerIdp(caller, idpId);
    const mapping = await this.mappings.findOne(tenantId, { idp_id: idpId });
    if (!mapping) throw AuthTypeProblems.mappingNotFound();
    const configuration = await this.requireConfiguration(tenantId, body.auth_type_id);
    const authTypeId = String(configuration._id);

    const undo = new Compensation(this.logger);
    try {
      if (mapping.auth_type_id !== authTypeId) {
        let updated;
        try {
          updated = await this.mappings.findOneAndUpdate(
            tenantId,
            { _id: mapping._id, auth_type_id: mapping.auth_type_id },
            { $set: { auth_type_id: authTypeId } },
          );
        } catch (error) {
          throw mappingConflict(error);
        }
        if (!updated) throw AuthTypeProblems.mappingChangedConcurrently();
        undo.add('restore mapping', () =>
          this.mappings.updateOne(tenantId, { _id: mapping._id }, { $set: { auth_type_id: mapping.auth_type_id } }),
        );
      }
      await this.verifyHybrid(tenantId, configuration, undo);
      const response = responseOf(idpId, configuration);
      await this.audit.record(caller, {
        action: 'update',
        resource: MAPPING_RESOURCE,
        resourceId: idpId,
        before: { idp_id: idpId, auth_type_id: mapping.auth_type_id },
        after: response,
      });
      return response;
    } catch (error) {
      await undo.run();
      throw error;
    } finally {
      await this.notifier.changed({ tenantId, idpId, authTypeId });
    }
  }

  /**
   * Deleting is switching the IdP to internal. Refused for the mapping to the internal
   * configuration and for the tenant's last mapping. "Last" is checked before the delete and
   * again after it (two concurrent deletes of the last two mappings both see none left and both
   * restore theirs), so the tenant never stays without a mapping.
   */
  async remove(caller: Principal, idpId: string): Promise<void> {
    const { tenantId } = caller;
    assertCallerIdp(caller, idpId);
    const mapping = await this.mappings.findOne(tenantId, { idp_id: idpId });
    if (!mapping) throw AuthTypeProblems.mappingNotFound();
    const configuration = await this.configurations.findById(tenantId, mapping.auth_type_id);
    if (configuration?.auth_type === 'internal') throw AuthTypeProblems.internalMappingUndeletable();
    if ((await this.mappings.count(tenantId)) <= 1) throw AuthTypeProblems.lastMappingUndeletable();

    const undo = new Compensation(this.logger);
    let placed = false;
    try {
      if (configuration?.auth_type === 'hybrid') placed = await this.adminTeams.placeInInitialAdminTeam(caller, undo);
      const deleted = await this.mappings.findOneAndDelete(tenantId, { _id: mapping._id, auth_type_id: mapping.auth_type_id });
      if (!deleted) throw AuthTypeProblems.mappingChangedConcurrently();
      undo.add('restore mapping', () => this.mappings.create(tenantId, { idp_id: deleted.idp_id, auth_type_id: deleted.auth_type_id }));
      if ((await this.mappings.count(tenantId)) === 0) throw AuthTypeProblems.lastMappingUndeletable();
      await this.audit.record(caller, {
        action: 'delete',
        resource: MAPPING_RESOURCE,
        resourceId: idpId,
        before: { idp_id: idpId, auth_type_id: mapping.auth_type_id, auth_type: configuration?.auth_type },
        after: placed ? { placed_in_team: INITIAL_ADMIN_TEAM, user_id: caller.userId } : undefined,
      });
    } catch (error) {
      await undo.run();
      placed = false;
      throw error;
    } finally {
      await this.notifier.changed({
        tenantId,
        idpId,
        authTypeId: mapping.auth_type_id,
        membershipOf: placed ? { userIds: [caller.userId], teamCodes: [INITIAL_ADMIN_TEAM] } : undefined,
      });
    }
  }

  /**
   * Hybrid: the configuration's team, org and external reference are checked and created when
   * missing. Then the configuration is read again: a configuration deleted meanwhile must not
   * stay mapped (its delete may have run before this mapping existed).
   */
  private async verifyHybrid(tenantId: string, configuration: StoredConfiguration, undo: Compensation): Promise<void> {
    if (
      configuration.auth_type === 'hybrid' &&
      configuration.initial_system_admin_team_code &&
      configuration.initial_system_admin_team_external_ref_id
    ) {
      await this.adminTeams.ensureTeam(
        tenantId,
        {
          teamCode: configuration.initial_system_admin_team_code,
          orgCode: configuration.initial_system_admin_org_code ?? INITIAL_ADMIN_ORG,
          externalRef: configuration.initial_system_admin_team_external_ref_id,
        },
        undo,
      );
    }
    if (!(await this.configurations.exists(tenantId, { _id: configuration._id }))) throw AuthTypeProblems.configurationNotFound();
  }

  private async requireConfiguration(tenantId: string, id: string): Promise<StoredConfiguration> {
    const found = await this.configurations.findById(tenantId, id);
    if (!found) throw AuthTypeProblems.configurationNotFound();
    return found;
  }
}
