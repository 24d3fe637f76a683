import { getModelToken } from '@nestjs/mongoose';
import { decodeJwt } from 'jose';
import type { Model } from 'mongoose';
import request from 'supertest';
import { PrincipalResolver } from '@lib/auth';
import { RemotePrincipalResolver } from '../../apps/costasset/src/principal/remote-principal.resolver';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

/** Direct reads go through the tenant-led indexes, as the services' own queries do (the suite refuses collection scans). */
const ANY_TENANT = { $in: ['default', 'other'] };

const BASE = '/core/authorization/v1';
const CONFIGS = `${BASE}/authtype/configurations`;
const MAPPINGS = `${BASE}/configuration/idp`;

type Doc = Record<string, unknown>;

/** IdP mappings over HTTP (docs/interface.md#idp-mappings): the hybrid flow end to end and cache invalidation. */
describe('authz: IdP ↔ auth-type mappings', () => {
  let platform: Platform;
  let admin: string;
  let teams: Model<Doc>;
  let orgs: Model<Doc>;
  let configurations: Model<Doc>;
  let mappings: Model<Doc>;
  let memberships: Model<Doc>;
  let audit: Model<Doc>;

  const http = () => request(platform.authz.url);
  const adminAt = (idp: string, groups: string[] = []) => platform.token({ sub: 'admin', idp, groups });
  const createConfiguration = async (body: object): Promise<{ id: string; [field: string]: unknown }> => {
    const res = await http().post(CONFIGS).set('corelite-token', admin).send(body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const map = (token: string, body: object) => http().post(MAPPINGS).set('corelite-token', token).send(body);
  const remap = (token: string, idp: string, body: object) => http().patch(`${MAPPINGS}/${idp}`).set('corelite-token', token).send(body);
  const unmap = (token: string, idp: string) => http().delete(`${MAPPINGS}/${idp}`).set('corelite-token', token);
  /** Exchanges a refresh token for an access token, as a login would, and decodes it. */
  const refresh = async (claims: { sub: string; groups?: string[]; idp?: string; tid?: string }) => {
    const res = await http()
      .post(`${BASE}/token/refresh`)
      .send({ refresh_token: await platform.refreshToken(claims) });
    expect(res.status).toBe(200);
    return { token: res.body.access_token as string, claims: decodeJwt(res.body.access_token) };
  };
  /** costasset provides its RemotePrincipalResolver under the PrincipalResolver token. */
  const principalCache = (): RemotePrincipalResolver => {
    const resolver = platform.costasset.app.get(PrincipalResolver);
    expect(resolver).toBeInstanceOf(RemotePrincipalResolver);
    return resolver as RemotePrincipalResolver;
  };
  /** Any call resolves (and caches) the caller's principal, even one its rule then refuses (a user in no team). */
  const warmCostassetCache = async (token: string) => {
    const res = await request(platform.costasset.url).get('/api/costasset/extensions/test').set('corelite-token', token);
    expect(res.status === 200 || res.body.code === 'TEAM_REQUIRED').toBe(true);
    expect(principalCache().cachedEntries()).toBeGreaterThan(0);
  };

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    const model = (name: string) => platform.authz.app.get<Model<Doc>>(getModelToken(name));
    teams = model('Team');
    orgs = model('Org');
    configurations = model('AuthTypeConfiguration');
    mappings = model('IdpMapping');
    memberships = model('Membership');
    audit = model('AuditRecord');
    // a user is (tenant, IdP, subject): `admin` of another IdP is a System Admin only once made one
    for (const idp_id of ['idp-2', 'idp-3']) {
      await http().post('/authorization/v2/users').set('corelite-token', admin).send({ user_id: 'admin', idp_id }).expect(201);
      await http()
        .post('/authorization/v2/userteam')
        .set('corelite-token', admin)
        .send({ user_id: 'admin', team_code: 'INITIAL-SETUP-ADMIN', idp_id })
        .expect(200);
    }
  });
  afterAll(() => platform.close());

  afterEach(async () => {
    await configurations.deleteMany({});
    await mappings.deleteMany({});
    await teams.deleteMany({ tenantId: ANY_TENANT, teamCode: { $ne: 'INITIAL-SETUP-ADMIN' } });
    await orgs.deleteMany({ tenantId: ANY_TENANT, orgCode: { $ne: 'admin_org' } });
    await memberships.deleteMany({ tenantId: ANY_TENANT, userId: { $ne: 'admin' } });
  });

  it(
    'hybrid end to end: map the caller IdP, a refreshed token of a group ' +
      'member carries hybrid, and /me shows the external System Admin team',
    async () => {
      const cloud = await createConfiguration({
        name: 'Cloud',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'cloud-admins',
        initial_system_admin_team_code: 'CLOUD-ADMINS',
      });

      const beforeMapping = await refresh({ sub: 'alice', groups: ['cloud-admins'] });
      expect(beforeMapping.claims).toMatchObject({ authType: 'internal' });
      expect((await http().get(`${BASE}/me`).set('corelite-token', beforeMapping.token).expect(200)).body).toMatchObject({
        teams: [],
        is_system_admin: false,
      });

      const mapped = await map(admin, { auth_type_id: cloud.id });
      expect(mapped.status).toBe(201);
      expect(mapped.body).toEqual({ idp_id: 'idp-default', auth_type_id: cloud.id, auth_type: 'hybrid' });
      expect(await mappings.countDocuments({ tenantId: 'default', idp_id: 'idp-default', auth_type_id: cloud.id })).toBe(1);
      expect(
        await audit.countDocuments({
          tenantId: ANY_TENANT,
          resource: 'idp_mapping',
          action: 'create',
          resourceId: 'idp-default',
          actor: 'admin',
        }),
      ).toBe(1);

      const alice = await refresh({ sub: 'alice', groups: ['cloud-admins'] });
      expect(alice.claims).toMatchObject({
        sub: 'alice',
        tid: 'default',
        idp: 'idp-default',
        groups: ['cloud-admins'],
        authType: 'hybrid',
        authTypeId: cloud.id,
      });
      const me = await http().get(`${BASE}/me`).set('corelite-token', alice.token).expect(200);
      expect(me.body).toMatchObject({
        user_id: 'alice',
        auth_type: 'hybrid',
        auth_type_id: cloud.id,
        is_system_admin: true,
        roles: ['System Admin'],
        teams: [{ team_code: 'CLOUD-ADMINS', org_code: 'admin_org', roles: ['System Admin'], via: 'external' }],
      });
      // As a hybrid System Admin, alice may administer auth types; without the group she may not.
      await http().get(CONFIGS).set('corelite-token', alice.token).expect(200);
      const outsider = await refresh({ sub: 'alice', groups: ['somebody-else'] });
      expectProblem(await http().get(CONFIGS).set('corelite-token', outsider.token), 403, 'SYSTEM_ADMIN_REQUIRED');

      // Hybrid PATCH of the external reference with the member's groups: matching, then not.
      const patchRef = (token: string, ref: string) =>
        http()
          .patch(`${BASE}/configuration/authtype/${cloud.id}`)
          .set('corelite-token', token)
          .send({ initial_system_admin_team_external_ref_id: ref });
      expectProblem(await patchRef(alice.token, 'cloud-admins-v2'), 403, 'EXTERNAL_REF_NOT_IN_TOKEN_GROUPS');
      const both = await refresh({ sub: 'alice', groups: ['cloud-admins', 'cloud-admins-v2'] });
      expect((await patchRef(both.token, 'cloud-admins-v2').expect(200)).body.initial_system_admin_team_external_ref_id).toBe(
        'cloud-admins-v2',
      );
      expect((await http().get(`${BASE}/me`).set('corelite-token', alice.token).expect(200)).body).toMatchObject({
        teams: [],
        is_system_admin: false,
      });
      const v2 = await refresh({ sub: 'alice', groups: ['cloud-admins-v2'] });
      expect((await http().get(`${BASE}/me`).set('corelite-token', v2.token).expect(200)).body).toMatchObject({
        is_system_admin: true,
        teams: [{ team_code: 'CLOUD-ADMINS', via: 'external' }],
      });
    },
  );

  it(
    'takes a missing idp_id from the token, cross-checks a given ' + 'one, and refuses unknown configurations and second mappings',
    async () => {
      const internal = await createConfiguration({ name: 'Corporate', auth_type: 'internal' });
      const cloud = await createConfiguration({
        name: 'Cloud',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'cloud-admins',
      });

      expectProblem(await map(admin, { idp_id: 'idp-other', auth_type_id: cloud.id }), 403, 'IDP_MISMATCH');
      expectProblem(await map(admin, { auth_type_id: '000000000000000000000000' }), 404, 'AUTHTYPE_NOT_FOUND');
      expectProblem(await map(admin, { auth_type_id: 'not-an-id' }), 404, 'AUTHTYPE_NOT_FOUND');
      expectProblem(await map(admin, {}), 400, 'VALIDATION_FAILED');
      expectProblem(await map(admin, { auth_type_id: cloud.id, extra: 1 }), 400, 'VALIDATION_FAILED');
      expect(await mappings.countDocuments({})).toBe(0);

      expect((await map(admin, { idp_id: 'idp-default', auth_type_id: internal.id })).body).toEqual({
        idp_id: 'idp-default',
        auth_type_id: internal.id,
        auth_type: 'internal',
      });
      expectProblem(await map(admin, { auth_type_id: cloud.id }), 409, 'IDP_ALREADY_MAPPED');
      expectProblem(await map(await adminAt('idp-2'), { auth_type_id: internal.id }), 409, 'AUTHTYPE_ALREADY_MAPPED');
      expect(await mappings.countDocuments({})).toBe(1);
      const second = await map(await adminAt('idp-2'), { auth_type_id: cloud.id });
      expect(second.body).toEqual({ idp_id: 'idp-2', auth_type_id: cloud.id, auth_type: 'hybrid' });
    },
  );

  it(
    'checks and creates the missing team, org and external reference of ' +
      'a hybrid configuration when mapping it, or refuses and leaves nothing',
    async () => {
      const ops = await createConfiguration({
        name: 'Ops',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'ops-admins',
        initial_system_admin_team_code: 'OPS-ADMINS',
        initial_system_admin_org_code: 'ops_org',
      });
      // Someone moved the reference to another team: mapping is refused, nothing stays.
      await teams.deleteMany({ tenantId: ANY_TENANT, teamCode: 'OPS-ADMINS' });
      await orgs.deleteMany({ tenantId: ANY_TENANT, orgCode: 'ops_org' });
      await teams.create({
        tenantId: 'default',
        teamCode: 'SQUATTER',
        orgCode: 'admin_org',
        roles: [],
        externalRefId: 'ops-admins',
        externalRefKey: 'ext:ops-admins',
      });
      expectProblem(await map(admin, { auth_type_id: ops.id }), 409, 'EXTERNAL_REF_IN_USE');
      expect(await mappings.countDocuments({})).toBe(0);
      expect(await teams.countDocuments({ tenantId: ANY_TENANT, teamCode: 'OPS-ADMINS' })).toBe(0);
      expect(await orgs.countDocuments({ tenantId: ANY_TENANT, orgCode: 'ops_org' })).toBe(0);

      // Team and org missing: both are created, with the role and the reference.
      await teams.deleteMany({ tenantId: ANY_TENANT, teamCode: 'SQUATTER' });
      expect((await map(admin, { auth_type_id: ops.id })).status).toBe(201);
      expect(await teams.findOne({ tenantId: ANY_TENANT, teamCode: 'OPS-ADMINS' }).lean()).toMatchObject({
        orgCode: 'ops_org',
        roles: ['System Admin'],
        externalRefId: 'ops-admins',
      });
      expect(await orgs.countDocuments({ tenantId: 'default', orgCode: 'ops_org' })).toBe(1);

      // Team present without its reference and role: PATCH of the mapping restores them.
      await teams.updateOne(
        { tenantId: ANY_TENANT, teamCode: 'OPS-ADMINS' },
        { $set: { roles: [], externalRefKey: 'team:OPS-ADMINS' }, $unset: { externalRefId: 1 } },
      );
      expect((await remap(admin, 'idp-default', { auth_type_id: ops.id })).status).toBe(200);
      expect(await teams.findOne({ tenantId: ANY_TENANT, teamCode: 'OPS-ADMINS' }).lean()).toMatchObject({
        roles: ['System Admin'],
        externalRefId: 'ops-admins',
        externalRefKey: 'ext:ops-admins',
      });
    },
  );

  it(
    'patches a mapping: cross-checks the IdP, needs an existing mapping and configuration, ' +
      'keeps one mapping per configuration; the next token carries the new auth type',
    async () => {
      const internal = await createConfiguration({ name: 'Corporate', auth_type: 'internal' });
      const cloud = await createConfiguration({
        name: 'Cloud',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'cloud-admins',
      });
      const legacy = await createConfiguration({
        name: 'Legacy',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'legacy-admins',
      });
      await map(admin, { auth_type_id: cloud.id }).expect(201);
      await map(await adminAt('idp-2'), { auth_type_id: legacy.id }).expect(201);

      expectProblem(await remap(admin, 'idp-2', { auth_type_id: internal.id }), 403, 'IDP_MISMATCH');
      expectProblem(await remap(await adminAt('idp-3'), 'idp-3', { auth_type_id: internal.id }), 404, 'IDP_MAPPING_NOT_FOUND');
      expectProblem(await remap(admin, 'idp-default', { auth_type_id: '000000000000000000000000' }), 404, 'AUTHTYPE_NOT_FOUND');
      expectProblem(await remap(admin, 'idp-default', { auth_type_id: legacy.id }), 409, 'AUTHTYPE_ALREADY_MAPPED');
      expectProblem(await remap(admin, 'idp-default', {}), 400, 'VALIDATION_FAILED');
      expect(await mappings.countDocuments({ tenantId: ANY_TENANT, idp_id: 'idp-default', auth_type_id: cloud.id })).toBe(1);
      expect((await refresh({ sub: 'alice', groups: ['cloud-admins'] })).claims).toMatchObject({
        authType: 'hybrid',
        authTypeId: cloud.id,
      });

      const res = await remap(admin, 'idp-default', { auth_type_id: internal.id });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { idp_id: 'idp-default', auth_type_id: internal.id, auth_type: 'internal' },
      });
      expect((await refresh({ sub: 'alice', groups: ['cloud-admins'] })).claims).toMatchObject({
        authType: 'internal',
        authTypeId: internal.id,
      });
      expect(
        await audit.countDocuments({
          tenantId: ANY_TENANT,
          resource: 'idp_mapping',
          action: 'update',
          resourceId: 'idp-default',
          'after.auth_type_id': internal.id,
        }),
      ).toBe(1);
    },
  );

  it(
    'deletes mappings: cross-checked, never the internal one nor the ' +
      'last one; a hybrid one places the caller into INITIAL-SETUP-ADMIN',
    async () => {
      const internal = await createConfiguration({ name: 'Corporate', auth_type: 'internal' });
      const cloud = await createConfiguration({
        name: 'Cloud',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'cloud-admins',
      });

      await map(admin, { auth_type_id: cloud.id }).expect(201);
      expectProblem(await unmap(admin, 'idp-2'), 403, 'IDP_MISMATCH');
      expectProblem(await unmap(await adminAt('idp-2'), 'idp-2'), 404, 'IDP_MAPPING_NOT_FOUND');
      expectProblem(await unmap(admin, 'idp-default'), 409, 'LAST_MAPPING_UNDELETABLE');

      await map(await adminAt('idp-2'), { auth_type_id: internal.id }).expect(201);
      expectProblem(await unmap(await adminAt('idp-2'), 'idp-2'), 409, 'INTERNAL_MAPPING_UNDELETABLE');
      expect(await mappings.countDocuments({})).toBe(2);

      // alice holds System Admin only through the hybrid team; after the delete she keeps it internally.
      const alice = await refresh({ sub: 'alice', groups: ['cloud-admins'] });
      expect(alice.claims).toMatchObject({ authType: 'hybrid' });
      await warmCostassetCache(alice.token);
      await unmap(alice.token, 'idp-default').expect(204);
      expect(await mappings.countDocuments({ tenantId: ANY_TENANT, idp_id: 'idp-default' })).toBe(0);
      expect(await memberships.countDocuments({ tenantId: 'default', userId: 'alice', teamCode: 'INITIAL-SETUP-ADMIN' })).toBe(1);
      await eventually(async () => expect(principalCache().cachedEntries()).toBe(0));

      const after = await refresh({ sub: 'alice', groups: ['cloud-admins'] });
      expect(after.claims).toMatchObject({ authType: 'internal' });
      expect(after.claims.authTypeId).toBeUndefined();
      expect((await http().get(`${BASE}/me`).set('corelite-token', after.token).expect(200)).body).toMatchObject({
        auth_type: 'internal',
        is_system_admin: true,
        teams: [{ team_code: 'INITIAL-SETUP-ADMIN', org_code: 'admin_org', roles: ['System Admin'], via: 'internal' }],
      });
      // Through costasset too (its principal comes from authz over NATS).
      const costasset = await request(platform.costasset.url).get('/api/costasset/extensions/test').set('corelite-token', after.token);
      expect(costasset.status).toBe(200);
      expect(
        await audit.countDocuments({
          tenantId: ANY_TENANT,
          resource: 'idp_mapping',
          action: 'delete',
          resourceId: 'idp-default',
          actor: 'alice',
        }),
      ).toBe(1);
      expect(await configurations.countDocuments({ tenantId: ANY_TENANT, _id: cloud.id })).toBe(1);
    },
  );

  it(
    'drops the costasset principal cache of the tenant on every ' + 'mapping change, so the next call and refresh see the new auth type',
    async () => {
      const cloud = await createConfiguration({
        name: 'Cloud',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'cloud-admins',
      });
      const internal = await createConfiguration({ name: 'Corporate', auth_type: 'internal' });
      const aliceAccess = await platform.token({ sub: 'alice', groups: ['cloud-admins'] });
      const resolver = principalCache();
      const costassetPrincipal = async () =>
        resolver.resolve({ sub: 'alice', tid: 'default', idp: 'idp-default', groups: ['cloud-admins'], authType: 'internal' });

      await warmCostassetCache(aliceAccess);
      expect((await costassetPrincipal()).isSystemAdmin).toBe(false);
      await map(admin, { auth_type_id: cloud.id }).expect(201);
      await eventually(async () => expect(resolver.cachedEntries()).toBe(0));
      expect(await costassetPrincipal()).toMatchObject({ authType: 'hybrid', isSystemAdmin: true });
      expect((await refresh({ sub: 'alice', groups: ['cloud-admins'] })).claims).toMatchObject({
        authType: 'hybrid',
        authTypeId: cloud.id,
      });

      await warmCostassetCache(aliceAccess);
      await remap(admin, 'idp-default', { auth_type_id: internal.id }).expect(200);
      await eventually(async () => expect(resolver.cachedEntries()).toBe(0));
      expect(await costassetPrincipal()).toMatchObject({ authType: 'internal', isSystemAdmin: false });
      expect((await refresh({ sub: 'alice', groups: ['cloud-admins'] })).claims).toMatchObject({
        authType: 'internal',
        authTypeId: internal.id,
      });

      // Deleting the configuration deletes its mapping: back to internal without authTypeId.
      await remap(admin, 'idp-default', { auth_type_id: cloud.id }).expect(200);
      await warmCostassetCache(aliceAccess);
      await http().delete(`${CONFIGS}/${cloud.id}`).set('corelite-token', admin).expect(204);
      await eventually(async () => expect(resolver.cachedEntries()).toBe(0));
      const back = await refresh({ sub: 'alice', groups: ['cloud-admins'] });
      expect(back.claims).toMatchObject({ authType: 'internal' });
      expect(back.claims.authTypeId).toBeUndefined();
    },
  );

  it("isolates tenants: another tenant's System Admin cannot map, patch or delete tenant default's mappings", async () => {
    const cloud = await createConfiguration({
      name: 'Cloud',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'cloud-admins',
    });
    await map(admin, { auth_type_id: cloud.id }).expect(201);
    await map(await adminAt('idp-2'), {
      auth_type_id: (await createConfiguration({ name: 'Corporate', auth_type: 'internal' })).id,
    }).expect(201);
    const other = await platform.token({ sub: 'admin', tid: 'other' });

    expectProblem(await map(other, { auth_type_id: cloud.id }), 404, 'AUTHTYPE_NOT_FOUND');
    expectProblem(await remap(other, 'idp-default', { auth_type_id: cloud.id }), 404, 'IDP_MAPPING_NOT_FOUND');
    expectProblem(await unmap(other, 'idp-default'), 404, 'IDP_MAPPING_NOT_FOUND');
    expect(await mappings.countDocuments({ tenantId: 'default' })).toBe(2);
    expect(await mappings.countDocuments({ tenantId: 'other' })).toBe(0);
    // Tenant default's hybrid mapping does not make other's users hybrid.
    expect((await refresh({ sub: 'alice', tid: 'other', groups: ['cloud-admins'] })).claims).toMatchObject({ authType: 'internal' });
  });

  it('answers 403 to callers who are not System Admins', async () => {
    const cloud = await createConfiguration({
      name: 'Cloud',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'cloud-admins',
    });
    const bob = await platform.token({ sub: 'bob' });
    expectProblem(await map(bob, { auth_type_id: cloud.id }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await remap(bob, 'idp-default', { auth_type_id: cloud.id }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await unmap(bob, 'idp-default'), 403, 'SYSTEM_ADMIN_REQUIRED');
    expect(await mappings.countDocuments({})).toBe(0);
  });
});
