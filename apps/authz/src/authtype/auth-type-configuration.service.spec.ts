import type { Principal } from '@lib/auth';
import type { AuditService } from '../audit/audit.service';
import type { AuthTypeChangeNotifier } from './auth-type-change.notifier';
import type { AuthTypeConfigurationRepository } from './auth-type-configuration.repository';
import { AuthTypeConfigurationService } from './auth-type-configuration.service';
import { AuthTypeProblems } from './auth-type.problems';
import type { HybridAdminTeamService } from './hybrid-admin-team.service';
import type { IdpMappingRepository } from './idp-mapping.repository';

const principal: Principal = {
  userId: 'admin',
  tenantId: 't1',
  idpId: 'idp-1',
  groups: [],
  authType: 'internal',
  teams: [],
  roles: ['System Admin'],
  isSystemAdmin: true,
};

function setup() {
  const configurations = {
    create: jest.fn(async (_tenant: string, doc: object) => ({ ...doc, _id: 'c1', tenantId: 't1' })),
    deleteOne: jest.fn(async () => 1),
    updateOne: jest.fn(async () => 1),
  };
  const adminTeams = { createTeam: jest.fn(async () => undefined) };
  const audit = { record: jest.fn(async () => undefined) };
  const notifier = { changed: jest.fn(async () => undefined) };
  const service = new AuthTypeConfigurationService(
    configurations as unknown as AuthTypeConfigurationRepository,
    {} as IdpMappingRepository,
    adminTeams as unknown as HybridAdminTeamService,
    notifier as unknown as AuthTypeChangeNotifier,
    audit as unknown as AuditService,
  );
  return { service, configurations, adminTeams, audit, notifier };
}

const hybrid = { name: 'Cloud', auth_type: 'hybrid' as const, initial_system_admin_team_external_ref_id: 'cloud-admins' };

describe('AuthTypeConfigurationService.create', () => {
  it('claims the configuration before the team and answers with the resolved codes', async () => {
    const { service, configurations, adminTeams, notifier } = setup();
    const created = await service.create(principal, hybrid);
    expect(created).toEqual({
      id: 'c1',
      name: 'Cloud',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'cloud-admins',
      initial_system_admin_team_code: expect.stringMatching(/^ADMIN-CLOUD-[0-9A-F]{6}$/),
      initial_system_admin_org_code: 'admin_org',
    });
    expect(configurations.create.mock.invocationCallOrder[0]).toBeLessThan(adminTeams.createTeam.mock.invocationCallOrder[0]);
    expect(configurations.deleteOne).not.toHaveBeenCalled();
    expect(notifier.changed).toHaveBeenCalledWith({ tenantId: 't1' });
  });

  it('takes the configuration back when the team cannot be created', async () => {
    const { service, configurations, adminTeams, audit } = setup();
    adminTeams.createTeam.mockRejectedValueOnce(AuthTypeProblems.externalRefInUse());
    await expect(service.create(principal, { ...hybrid, initial_system_admin_team_code: 'CLOUD' })).rejects.toMatchObject({
      code: 'EXTERNAL_REF_IN_USE',
    });
    expect(configurations.deleteOne).toHaveBeenCalledWith('t1', { _id: 'c1' });
    expect(audit.record).not.toHaveBeenCalled();
  });

  it('takes everything back when the audit record cannot be written', async () => {
    const { service, configurations, audit } = setup();
    audit.record.mockRejectedValueOnce(new Error('db down'));
    await expect(service.create(principal, { name: 'Corp', auth_type: 'internal' })).rejects.toThrow('db down');
    expect(configurations.deleteOne).toHaveBeenCalledWith('t1', { _id: 'c1' });
  });

  it('draws another generated team code when the generated one exists, and keeps an explicit one', async () => {
    const { service, configurations, adminTeams } = setup();
    adminTeams.createTeam.mockRejectedValueOnce(AuthTypeProblems.teamCodeTaken());
    const created = await service.create(principal, hybrid);
    expect(adminTeams.createTeam).toHaveBeenCalledTimes(2);
    expect(configurations.updateOne).toHaveBeenCalledWith(
      't1',
      { _id: 'c1' },
      { $set: { initial_system_admin_team_code: created.initial_system_admin_team_code } },
    );

    adminTeams.createTeam.mockRejectedValueOnce(AuthTypeProblems.teamCodeTaken());
    await expect(service.create(principal, { ...hybrid, initial_system_admin_team_code: 'TAKEN' })).rejects.toMatchObject({
      code: 'TEAM_CODE_TAKEN',
    });
  });

  it('maps the unique indexes of the configurations to their problems', async () => {
    const { service, configurations } = setup();
    configurations.create.mockRejectedValueOnce(Object.assign(new Error('E11000'), { code: 11000, keyPattern: { tenantId: 1, name: 1 } }));
    await expect(service.create(principal, { name: 'Corp', auth_type: 'internal' })).rejects.toMatchObject({ code: 'AUTHTYPE_NAME_TAKEN' });
    configurations.create.mockRejectedValueOnce(
      Object.assign(new Error('E11000'), { code: 11000, keyPattern: { tenantId: 1, singletonKey: 1 } }),
    );
    await expect(service.create(principal, { name: 'Corp', auth_type: 'internal' })).rejects.toMatchObject({
      code: 'AUTHTYPE_INTERNAL_EXISTS',
    });
    expect(configurations.deleteOne).not.toHaveBeenCalled();
  });
});
