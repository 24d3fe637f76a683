import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import {
  CreateAuthTypeConfigurationRequest,
  ListAuthTypeConfigurationsQuery,
  UpdateAuthTypeConfigurationRequest,
} from './auth-type-configuration.dto';
import { CreateIdpMappingRequest } from './idp-mapping.dto';

async function failedFields<T extends object>(type: new () => T, body: object): Promise<string[]> {
  const errors = await validate(plainToInstance(type, body), { whitelist: true, forbidNonWhitelisted: true });
  return errors.map((error) => error.property).sort();
}

describe('auth-type configuration DTOs', () => {
  it('accepts the internal and hybrid bodies, trimmed', async () => {
    expect(await failedFields(CreateAuthTypeConfigurationRequest, { name: 'Corp', auth_type: 'internal' })).toEqual([]);
    expect(
      await failedFields(CreateAuthTypeConfigurationRequest, {
        name: 'Cloud',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'cloud-admins',
        initial_system_admin_team_code: 'CLOUD-ADMINS',
        initial_system_admin_org_code: 'admin_org',
      }),
    ).toEqual([]);
    const trimmed = plainToInstance(CreateAuthTypeConfigurationRequest, { name: '  Corp ', auth_type: 'internal' });
    expect(trimmed.name).toBe('Corp');
  });

  it('requires the external reference for hybrid and refuses the hybrid fields for internal', async () => {
    expect(await failedFields(CreateAuthTypeConfigurationRequest, { name: 'H', auth_type: 'hybrid' })).toEqual([
      'initial_system_admin_team_external_ref_id',
    ]);
    expect(
      await failedFields(CreateAuthTypeConfigurationRequest, {
        name: 'I',
        auth_type: 'internal',
        initial_system_admin_team_external_ref_id: 'g',
        initial_system_admin_team_code: 'T',
        initial_system_admin_org_code: 'o',
      }),
    ).toEqual(['initial_system_admin_org_code', 'initial_system_admin_team_code', 'initial_system_admin_team_external_ref_id']);
  });

  it('refuses empty, too long, control-character and malformed values and unknown fields', async () => {
    expect(await failedFields(CreateAuthTypeConfigurationRequest, { name: ' ', auth_type: 'internal' })).toEqual(['name']);
    expect(await failedFields(CreateAuthTypeConfigurationRequest, { name: 'a\u0007b', auth_type: 'internal' })).toEqual(['name']);
    expect(await failedFields(CreateAuthTypeConfigurationRequest, { name: 'x'.repeat(129), auth_type: 'internal' })).toEqual(['name']);
    expect(await failedFields(CreateAuthTypeConfigurationRequest, { name: 'x', auth_type: 'saml' })).toEqual(['auth_type']);
    expect(
      await failedFields(CreateAuthTypeConfigurationRequest, {
        name: 'x',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'g',
        initial_system_admin_team_code: '-bad code',
      }),
    ).toEqual(['initial_system_admin_team_code']);
    expect(await failedFields(CreateAuthTypeConfigurationRequest, { name: 'x', auth_type: 'internal', singletonKey: 'y' })).toEqual([
      'singletonKey',
    ]);
    expect(await failedFields(UpdateAuthTypeConfigurationRequest, { name: 'x', auth_type: 'hybrid' })).toEqual(['auth_type']);
    expect(await failedFields(UpdateAuthTypeConfigurationRequest, { initial_system_admin_team_external_ref_id: '' })).toEqual([
      'initial_system_admin_team_external_ref_id',
    ]);
    expect(await failedFields(ListAuthTypeConfigurationsQuery, { auth_type: 'x' })).toEqual(['auth_type']);
    expect(await failedFields(CreateIdpMappingRequest, { idp_id: 'idp' })).toEqual(['auth_type_id']);
  });
});
