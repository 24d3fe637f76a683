import type { Principal } from '@lib/auth';
import type { AuditService } from '../audit/audit.service';
import type { AuthTypeChangeNotifier } from './auth-type-change.notifier';
import type { AuthTypeConfigurationRepository } from './auth-type-configuration.repository';
import type { HybridAdminTeamService } from './hybrid-admin-team.service';
import type { IdpMappingRepository } from './idp-mapping.repository';
import { IdpMappingService } from './idp-mapping.service';

const principal: Principal = {
  userId: 'alice',
  tenantId: 't1',
  idpId: 'idp-1',
  groups: ['cloud-admins'],
  authType: 'hybrid',
  teams: [],
  roles: ['System Admin'],
  isSystemAdmin: true,
};
const mapping = { _id: 'm1', idp_id: 'idp-1', auth_type_id: 'c1', tenantId: 't1' };

function setup(count: number[]) {
  const mappings = {
    findOne: jest.fn(async () => mapping),
    count: jest.fn(async () => count.shift() ?? 0),
    findOneAndDelete: jest.fn(async () => mapping),
    create: jest.fn(async () => mapping),
  };
  const configurations = { findById: jest.fn(async () => ({ _id: 'c1', auth_type: 'hybrid', name: 'Cloud' })) };
  const adminTeams = { placeInInitialAdminTeam: jest.fn(async () => true) };
  const notifier = { changed: jest.fn(async () => undefined) };
  const audit = { record: jest.fn(async () => undefined) };
  const service = new IdpMappingService(
    mappings as unknown as IdpMappingRepository,
    configurations as unknown as AuthTypeConfigurationRepository,
    adminTeams as unknown as HybridAdminTeamService,
    notifier as unknown as AuthTypeChangeNotifier,
    audit as unknown as AuditService,
  );
  return { service, mappings, configurations, adminTeams, notifier, audit };
}

describe('IdpMappingService.remove', () => {
  it('places the caller into INITIAL-SETUP-ADMIN, deletes, audits and announces the membership', async () => {
    const { service, mappings, adminTeams, notifier, audit } = setup([2, 1]);
    await service.remove(principal, 'idp-1');
    expect(adminTeams.placeInInitialAdminTeam).toHaveBeenCalled();
    expect(mappings.findOneAndDelete).toHaveBeenCalledWith('t1', { _id: 'm1', auth_type_id: 'c1' });
    expect(mappings.create).not.toHaveBeenCalled();
    expect(audit.record).toHaveBeenCalledWith(
      principal,
      expect.objectContaining({ action: 'delete', resource: 'idp_mapping', resourceId: 'idp-1' }),
    );
    expect(notifier.changed).toHaveBeenCalledWith(
      expect.objectContaining({ tenantId: 't1', membershipOf: { userIds: ['alice'], teamCodes: ['INITIAL-SETUP-ADMIN'] } }),
    );
  });

  it('restores the mapping when a concurrent delete left the tenant without any', async () => {
    const { service, mappings, audit, notifier } = setup([2, 0]);
    await expect(service.remove(principal, 'idp-1')).rejects.toMatchObject({ code: 'LAST_MAPPING_UNDELETABLE' });
    expect(mappings.create).toHaveBeenCalledWith('t1', { idp_id: 'idp-1', auth_type_id: 'c1' });
    expect(audit.record).not.toHaveBeenCalled();
    expect(notifier.changed).toHaveBeenCalledWith(expect.objectContaining({ membershipOf: undefined }));
  });

  it('refuses the internal mapping, the last mapping and another IdP before writing anything', async () => {
    const internal = setup([2]);
    internal.configurations.findById.mockResolvedValueOnce({ _id: 'c1', auth_type: 'internal', name: 'Corp' });
    await expect(internal.service.remove(principal, 'idp-1')).rejects.toMatchObject({ code: 'INTERNAL_MAPPING_UNDELETABLE' });
    const last = setup([1]);
    await expect(last.service.remove(principal, 'idp-1')).rejects.toMatchObject({ code: 'LAST_MAPPING_UNDELETABLE' });
    const other = setup([2]);
    await expect(other.service.remove(principal, 'idp-2')).rejects.toMatchObject({ code: 'IDP_MISMATCH' });
    for (const { mappings, adminTeams } of [internal, last, other]) {
      expect(mappings.findOneAndDelete).not.toHaveBeenCalled();
      expect(adminTeams.placeInInitialAdminTeam).not.toHaveBeenCalled();
    }
  });
});
