import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import request from 'supertest';
import { Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

/** Direct reads go through the tenant-led indexes, as the services' own queries do (the suite refuses collection scans). */
const ANY_TENANT = { $in: ['default', 'other'] };

const BASE = '/core/authorization/v1';
const CONFIGS = `${BASE}/authtype/configurations`;
const patchPath = (id: string) => `${BASE}/configuration/authtype/${id}`;
const MAPPINGS = `${BASE}/configuration/idp`;

type Doc = Record<string, unknown>;

/** Auth-type configurations over HTTP, concurrency and tenant isolation (docs/interface.md#configuration-rules). */
describe('authz: auth-type configurations', () => {
  let platform: Platform;
  let admin: string;
  let teams: Model<Doc>;
  let orgs: Model<Doc>;
  let configurations: Model<Doc>;
  let mappings: Model<Doc>;
  let memberships: Model<Doc>;
  let audit: Model<Doc>;

  const http = () => request(platform.authz.url);
  const post = (token: string, body: object) => http().post(CONFIGS).set('corelite-token', token).send(body);
  const tokenWith = (groups: string[], idp?: string) => platform.token({ sub: 'admin', groups, idp });

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
    for (const idp_id of ['idp-2']) {
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
    // Each test starts from the bootstrap state of the tenants.
    await configurations.deleteMany({});
    await mappings.deleteMany({});
    await teams.deleteMany({ tenantId: ANY_TENANT, teamCode: { $ne: 'INITIAL-SETUP-ADMIN' } });
    await orgs.deleteMany({ tenantId: ANY_TENANT, orgCode: { $ne: 'admin_org' } });
    await memberships.deleteMany({ tenantId: ANY_TENANT, userId: { $ne: 'admin' } });
  });

  it(
    'creates an internal configuration (trimmed), reads it back, audits ' +
      'it, and refuses a second internal and a duplicate name in any case',
    async () => {
      const created = await post(admin, { name: '  Corporate  ', auth_type: 'internal' }).expect(201);
      expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'Corporate', auth_type: 'internal' });

      const read = await http().get(`${CONFIGS}/${created.body.id}`).set('corelite-token', admin).expect(200);
      expect(read.body).toEqual(created.body);
      const list = await http().get(CONFIGS).set('corelite-token', admin).expect(200);
      expect(list.body).toEqual([created.body]);
      expect(
        await audit.countDocuments({
          tenantId: 'default',
          resource: 'authtype_configuration',
          action: 'create',
          resourceId: created.body.id,
          actor: 'admin',
        }),
      ).toBe(1);

      expectProblem(await post(admin, { name: 'Second', auth_type: 'internal' }), 409, 'AUTHTYPE_INTERNAL_EXISTS');
      const dup = await post(admin, {
        name: 'CORPORATE',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'dup-ref',
        initial_system_admin_org_code: 'dup_org',
      });
      expectProblem(dup, 409, 'AUTHTYPE_NAME_TAKEN');
      expect(await teams.countDocuments({ tenantId: ANY_TENANT, externalRefId: 'dup-ref' })).toBe(0);
      expect(await orgs.countDocuments({ tenantId: ANY_TENANT, orgCode: 'dup_org' })).toBe(0);
      expect(await configurations.countDocuments({ tenantId: 'default' })).toBe(1);
    },
  );

  it('refuses bodies that do not fit the auth type, unknown fields and bad values with 400 listing the field', async () => {
    const cases: [object, string][] = [
      [{ name: 'H', auth_type: 'hybrid' }, 'initial_system_admin_team_external_ref_id'],
      [{ name: 'H', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: '   ' }, 'initial_system_admin_team_external_ref_id'],
      [{ name: 'I', auth_type: 'internal', initial_system_admin_team_external_ref_id: 'g' }, 'initial_system_admin_team_external_ref_id'],
      [{ name: 'I', auth_type: 'internal', initial_system_admin_team_code: 'T' }, 'initial_system_admin_team_code'],
      [{ name: 'I', auth_type: 'internal', initial_system_admin_org_code: 'o' }, 'initial_system_admin_org_code'],
      [{ name: '   ', auth_type: 'internal' }, 'name'],
      [{ name: 'x'.repeat(129), auth_type: 'internal' }, 'name'],
      [{ name: 'I', auth_type: 'root' }, 'auth_type'],
      [
        { name: 'H', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'g', initial_system_admin_team_code: 'has space' },
        'initial_system_admin_team_code',
      ],
      [{ name: 'I', auth_type: 'internal', id: 'x' }, 'id'],
    ];
    for (const [body, field] of cases) {
      const res = await post(admin, body);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
    expect(await configurations.countDocuments({})).toBe(0);
  });

  it('creates hybrid configurations with a new System Admin team, the org when missing, and resolved codes', async () => {
    const generated = await post(admin, {
      name: 'Cloud Ops',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'cloud-ops',
    }).expect(201);
    expect(generated.body).toEqual({
      id: expect.any(String),
      name: 'Cloud Ops',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'cloud-ops',
      initial_system_admin_team_code: expect.stringMatching(/^ADMIN-CLOUD-OPS-[0-9A-F]{6}$/),
      initial_system_admin_org_code: 'admin_org',
    });
    expect(await teams.findOne({ tenantId: 'default', teamCode: generated.body.initial_system_admin_team_code }).lean()).toMatchObject({
      orgCode: 'admin_org',
      roles: ['System Admin'],
      externalRefId: 'cloud-ops',
    });

    const explicit = {
      name: 'Finance',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'fin-admins',
      initial_system_admin_team_code: 'FIN-ADMINS',
      initial_system_admin_org_code: 'finance_org',
    };
    const created = await post(admin, explicit).expect(201);
    expect(created.body).toEqual({ ...explicit, id: expect.any(String) });
    expect(await orgs.countDocuments({ tenantId: 'default', orgCode: 'finance_org' })).toBe(1);
    expect(await teams.findOne({ tenantId: 'default', teamCode: 'FIN-ADMINS' }).lean()).toMatchObject({
      orgCode: 'finance_org',
      roles: ['System Admin'],
      externalRefId: 'fin-admins',
    });
    expect((await http().get(`${CONFIGS}/${created.body.id}`).set('corelite-token', admin).expect(200)).body).toEqual(created.body);

    // An existing org is reused, not duplicated.
    await post(admin, {
      ...explicit,
      name: 'Finance 2',
      initial_system_admin_team_external_ref_id: 'fin-2',
      initial_system_admin_team_code: 'FIN-2',
    }).expect(201);
    expect(await orgs.countDocuments({ tenantId: 'default', orgCode: 'finance_org' })).toBe(1);
  });

  it('refuses an external reference already on a team and a team code that is not new, leaving nothing behind', async () => {
    await post(admin, {
      name: 'Finance',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'fin-admins',
      initial_system_admin_team_code: 'FIN-ADMINS',
    }).expect(201);
    const teamsBefore = await teams.countDocuments({});

    const refTaken = await post(admin, {
      name: 'Copycat',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'fin-admins',
      initial_system_admin_org_code: 'ghost_org',
    });
    expectProblem(refTaken, 409, 'EXTERNAL_REF_IN_USE');
    const codeTaken = await post(admin, {
      name: 'Copycat',
      auth_type: 'hybrid',
      initial_system_admin_team_external_ref_id: 'brand-new',
      initial_system_admin_team_code: 'INITIAL-SETUP-ADMIN',
      initial_system_admin_org_code: 'ghost_org',
    });
    expectProblem(codeTaken, 409, 'TEAM_CODE_TAKEN');
    expectProblem(
      await post(admin, {
        name: 'Copycat',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'brand-new',
        initial_system_admin_team_code: 'FIN-ADMINS',
      }),
      409,
      'TEAM_CODE_TAKEN',
    );

    expect(await configurations.countDocuments({ tenantId: ANY_TENANT, name: 'Copycat' })).toBe(0);
    expect(await teams.countDocuments({})).toBe(teamsBefore);
    expect(await teams.countDocuments({ tenantId: ANY_TENANT, externalRefId: 'brand-new' })).toBe(0);
    expect(await orgs.countDocuments({ tenantId: ANY_TENANT, orgCode: 'ghost_org' })).toBe(0);
    // The refused name is free again.
    await post(admin, { name: 'Copycat', auth_type: 'internal' }).expect(201);
  });

  it('lists with case-insensitive exact name and auth_type filters; 404 for unknown and malformed ids', async () => {
    const internal = (await post(admin, { name: 'Corporate', auth_type: 'internal' }).expect(201)).body;
    const hybrid = (
      await post(admin, { name: 'Cloud', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'cloud' }).expect(201)
    ).body;
    const list = (query: object) => http().get(CONFIGS).query(query).set('corelite-token', admin).expect(200);

    expect((await list({})).body).toEqual([internal, hybrid]);
    expect((await list({ name: 'cLoUd' })).body).toEqual([hybrid]);
    expect((await list({ name: 'Clou' })).body).toEqual([]);
    expect((await list({ auth_type: 'internal' })).body).toEqual([internal]);
    expect((await list({ auth_type: 'hybrid', name: 'CLOUD' })).body).toEqual([hybrid]);
    expect((await list({ auth_type: 'internal', name: 'cloud' })).body).toEqual([]);
    expectProblem(await http().get(CONFIGS).query({ auth_type: 'root' }).set('corelite-token', admin), 400, 'VALIDATION_FAILED');

    for (const id of ['000000000000000000000000', 'not-an-id']) {
      expectProblem(await http().get(`${CONFIGS}/${id}`).set('corelite-token', admin), 404, 'AUTHTYPE_NOT_FOUND');
      expectProblem(await http().patch(patchPath(id)).set('corelite-token', admin).send({ name: 'x' }), 404, 'AUTHTYPE_NOT_FOUND');
      expectProblem(await http().delete(`${CONFIGS}/${id}`).set('corelite-token', admin), 404, 'AUTHTYPE_NOT_FOUND');
    }
  });

  it('patches an internal configuration: name only, still unique, case-only rename of itself allowed', async () => {
    const internal = (await post(admin, { name: 'Corporate', auth_type: 'internal' }).expect(201)).body;
    await post(admin, { name: 'Cloud', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'cloud' }).expect(201);
    const patch = (body: object, token = admin) => http().patch(patchPath(internal.id)).set('corelite-token', token).send(body);

    expect((await patch({ name: ' Corp ' }).expect(200)).body).toEqual({ ...internal, name: 'Corp' });
    expect((await patch({ name: 'CORP' }).expect(200)).body).toEqual({ ...internal, name: 'CORP' });
    expectProblem(await patch({ name: 'cloud' }), 409, 'AUTHTYPE_NAME_TAKEN');
    expectProblem(await patch({}), 400, 'VALIDATION_FAILED');
    expectProblem(await patch({ initial_system_admin_team_external_ref_id: 'g' }), 400, 'VALIDATION_FAILED');
    expectProblem(await patch({ name: 'x', auth_type: 'hybrid' }), 400, 'VALIDATION_FAILED');
    expect((await http().get(`${CONFIGS}/${internal.id}`).set('corelite-token', admin).expect(200)).body.name).toBe('CORP');
    expect(
      await audit.countDocuments({ tenantId: ANY_TENANT, resource: 'authtype_configuration', action: 'update', resourceId: internal.id }),
    ).toBe(2);
  });

  it(
    'patches the external reference of a hybrid configuration only ' + 'with matching token groups, and moves it on the admin team',
    async () => {
      const finance = (
        await post(admin, {
          name: 'Finance',
          auth_type: 'hybrid',
          initial_system_admin_team_external_ref_id: 'fin-admins',
          initial_system_admin_team_code: 'FIN-ADMINS',
        }).expect(201)
      ).body;
      await post(admin, {
        name: 'Cloud',
        auth_type: 'hybrid',
        initial_system_admin_team_external_ref_id: 'cloud-ops',
        initial_system_admin_team_code: 'CLOUD',
      }).expect(201);
      const patch = async (groups: string[], body: object) =>
        http()
          .patch(patchPath(finance.id))
          .set('corelite-token', await tokenWith(groups))
          .send(body);
      const newRef = { initial_system_admin_team_external_ref_id: 'fin-new' };

      expectProblem(await patch([], newRef), 403, 'TOKEN_GROUPS_MISSING');
      expectProblem(await patch(['fin-admins'], newRef), 403, 'EXTERNAL_REF_NOT_IN_TOKEN_GROUPS');
      expectProblem(await patch(['fin-new', 'nobody'], newRef), 403, 'NO_SYSTEM_ADMIN_TEAM_FOR_GROUPS');
      // A group of a team *without* System Admin does not count.
      await teams.create({
        tenantId: 'default',
        teamCode: 'READERS',
        orgCode: 'admin_org',
        roles: ['Reader'],
        externalRefId: 'readers',
        externalRefKey: 'ext:readers',
      });
      expectProblem(await patch(['fin-new', 'readers'], newRef), 403, 'NO_SYSTEM_ADMIN_TEAM_FOR_GROUPS');
      expect(
        (await http().get(`${CONFIGS}/${finance.id}`).set('corelite-token', admin)).body.initial_system_admin_team_external_ref_id,
      ).toBe('fin-admins');

      const moved = await patch(['fin-admins', 'fin-new'], newRef);
      expect(moved.status).toBe(200);
      expect(moved.body).toEqual({ ...finance, initial_system_admin_team_external_ref_id: 'fin-new' });
      expect(await teams.findOne({ tenantId: ANY_TENANT, teamCode: 'FIN-ADMINS' }).lean()).toMatchObject({
        externalRefId: 'fin-new',
        roles: ['System Admin'],
      });
      expect(await teams.countDocuments({ tenantId: ANY_TENANT, externalRefId: 'fin-admins' })).toBe(0);

      // Another team's reference: refused, and the rename sent with it is taken back.
      const squat = await patch(['fin-new', 'cloud-ops'], {
        name: 'Finance renamed',
        initial_system_admin_team_external_ref_id: 'cloud-ops',
      });
      expectProblem(squat, 409, 'EXTERNAL_REF_IN_USE');
      expect((await http().get(`${CONFIGS}/${finance.id}`).set('corelite-token', admin)).body).toEqual(moved.body);
      expect(await teams.findOne({ tenantId: ANY_TENANT, teamCode: 'FIN-ADMINS' }).lean()).toMatchObject({ externalRefId: 'fin-new' });

      // A rename alone needs no groups; a duplicate name is refused.
      const renamed = await patch([], { name: 'Finance EU' });
      expect({ status: renamed.status, name: renamed.body.name }).toEqual({ status: 200, name: 'Finance EU' });
      expectProblem(await patch([], { name: 'CLOUD' }), 409, 'AUTHTYPE_NAME_TAKEN');
    },
  );

  it('refuses patching or deleting a mapped configuration from another IdP than the mapped one', async () => {
    const finance = (
      await post(admin, { name: 'Finance', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'fin-admins' }).expect(201)
    ).body;
    await http().post(MAPPINGS).set('corelite-token', admin).send({ auth_type_id: finance.id }).expect(201);
    const elsewhere = await tokenWith(['fin-admins', 'fin-new'], 'idp-2');

    expectProblem(await http().patch(patchPath(finance.id)).set('corelite-token', elsewhere).send({ name: 'X' }), 403, 'IDP_MISMATCH');
    expectProblem(await http().delete(`${CONFIGS}/${finance.id}`).set('corelite-token', elsewhere), 403, 'IDP_MISMATCH');
    const sameIdp = await tokenWith(['fin-admins', 'fin-new']);
    await http().patch(patchPath(finance.id)).set('corelite-token', sameIdp).send({ name: 'X' }).expect(200);
  });

  it(
    'deletes a mapped hybrid configuration: the mapping goes, the caller lands ' +
      'in INITIAL-SETUP-ADMIN and keeps System Admin under internal authorization',
    async () => {
      const finance = (
        await post(admin, {
          name: 'Finance',
          auth_type: 'hybrid',
          initial_system_admin_team_external_ref_id: 'fin-admins',
          initial_system_admin_team_code: 'FIN-ADMINS',
        }).expect(201)
      ).body;
      await http().post(MAPPINGS).set('corelite-token', admin).send({ auth_type_id: finance.id }).expect(201);
      // alice is a System Admin only through the hybrid team.
      const alice = await platform.token({ sub: 'alice', groups: ['fin-admins'] });
      const before = await http().get(`${BASE}/me`).set('corelite-token', alice).expect(200);
      expect(before.body).toMatchObject({
        auth_type: 'hybrid',
        is_system_admin: true,
        teams: [{ team_code: 'FIN-ADMINS', via: 'external' }],
      });

      await http().delete(`${CONFIGS}/${finance.id}`).set('corelite-token', alice).expect(204);

      expectProblem(await http().get(`${CONFIGS}/${finance.id}`).set('corelite-token', admin), 404, 'AUTHTYPE_NOT_FOUND');
      expect(await mappings.countDocuments({ tenantId: 'default' })).toBe(0);
      expect(await memberships.countDocuments({ tenantId: 'default', userId: 'alice', teamCode: 'INITIAL-SETUP-ADMIN' })).toBe(1);
      const after = await http().get(`${BASE}/me`).set('corelite-token', alice).expect(200);
      expect(after.body).toMatchObject({
        auth_type: 'internal',
        is_system_admin: true,
        teams: [{ team_code: 'INITIAL-SETUP-ADMIN', org_code: 'admin_org', roles: ['System Admin'], via: 'internal' }],
      });
      expect(await teams.countDocuments({ tenantId: ANY_TENANT, teamCode: 'FIN-ADMINS' })).toBe(1);
      expect(
        await audit.countDocuments({
          tenantId: ANY_TENANT,
          resource: 'authtype_configuration',
          action: 'delete',
          resourceId: finance.id,
          actor: 'alice',
        }),
      ).toBe(1);
      expectProblem(await http().delete(`${CONFIGS}/${finance.id}`).set('corelite-token', admin), 404, 'AUTHTYPE_NOT_FOUND');
    },
  );

  it('deletes an internal configuration without touching memberships', async () => {
    const internal = (await post(admin, { name: 'Corporate', auth_type: 'internal' }).expect(201)).body;
    const membershipsBefore = await memberships.countDocuments({});
    await http().delete(`${CONFIGS}/${internal.id}`).set('corelite-token', admin).expect(204);
    expect(await configurations.countDocuments({})).toBe(0);
    expect(await memberships.countDocuments({})).toBe(membershipsBefore);
    // The internal slot is free again.
    await post(admin, { name: 'Corporate again', auth_type: 'internal' }).expect(201);
  });

  it('under 20 concurrent creates keeps exactly one internal, one per name and one per external reference', async () => {
    const statuses = (responses: request.Response[]) => responses.map((r) => r.status).sort();
    const expectOneWinner = (responses: request.Response[], code: string) => {
      expect(statuses(responses)).toEqual([201, ...Array(19).fill(409)]);
      for (const res of responses.filter((r) => r.status === 409)) expect(res.body.code).toBe(code);
    };

    const internals = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(admin, { name: `Internal ${i}`, auth_type: 'internal' })),
    );
    expectOneWinner(internals, 'AUTHTYPE_INTERNAL_EXISTS');
    expect(await configurations.countDocuments({ tenantId: 'default', auth_type: 'internal' })).toBe(1);

    const sameName = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(admin, { name: i % 2 ? 'RACE' : 'race', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: `race-${i}` }),
      ),
    );
    expectOneWinner(sameName, 'AUTHTYPE_NAME_TAKEN');
    expect(await configurations.countDocuments({ tenantId: 'default', auth_type: 'hybrid' })).toBe(1);
    expect(await teams.countDocuments({ tenantId: 'default', externalRefId: /^race-/ })).toBe(1);

    const sameRef = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(admin, { name: `Shared ${i}`, auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'shared-ref' }),
      ),
    );
    expectOneWinner(sameRef, 'EXTERNAL_REF_IN_USE');
    expect(await configurations.countDocuments({ tenantId: 'default', initial_system_admin_team_external_ref_id: 'shared-ref' })).toBe(1);
    expect(await teams.countDocuments({ tenantId: 'default', externalRefId: 'shared-ref' })).toBe(1);

    const internalSameName = await Promise.all(Array.from({ length: 20 }, () => post(admin, { name: 'Only', auth_type: 'internal' })));
    expect(statuses(internalSameName)).toEqual(Array(20).fill(409));
    await configurations.deleteMany({ tenantId: ANY_TENANT, auth_type: 'internal' });
    const retried = await Promise.all(Array.from({ length: 20 }, () => post(admin, { name: 'Only', auth_type: 'internal' })));
    expect(statuses(retried)).toEqual([201, ...Array(19).fill(409)]);
    expect(await configurations.countDocuments({ tenantId: 'default', auth_type: 'internal' })).toBe(1);
  });

  it("isolates tenants: another tenant's System Admin gets 404 for every id of tenant default and cannot map or unmap it", async () => {
    const finance = (
      await post(admin, { name: 'Finance', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'fin-admins' }).expect(201)
    ).body;
    await http().post(MAPPINGS).set('corelite-token', admin).send({ auth_type_id: finance.id }).expect(201);
    const other = await platform.token({ sub: 'admin', tid: 'other', groups: ['fin-admins', 'x'] });

    expect((await http().get(`${BASE}/me`).set('corelite-token', other).expect(200)).body).toMatchObject({
      tenant_id: 'other',
      is_system_admin: true,
    });
    expectProblem(await http().get(`${CONFIGS}/${finance.id}`).set('corelite-token', other), 404, 'AUTHTYPE_NOT_FOUND');
    expectProblem(
      await http().patch(patchPath(finance.id)).set('corelite-token', other).send({ name: 'Stolen' }),
      404,
      'AUTHTYPE_NOT_FOUND',
    );
    expectProblem(
      await http().patch(patchPath(finance.id)).set('corelite-token', other).send({ initial_system_admin_team_external_ref_id: 'x' }),
      404,
      'AUTHTYPE_NOT_FOUND',
    );
    expectProblem(await http().delete(`${CONFIGS}/${finance.id}`).set('corelite-token', other), 404, 'AUTHTYPE_NOT_FOUND');
    expect((await http().get(CONFIGS).set('corelite-token', other).expect(200)).body).toEqual([]);
    expectProblem(await http().post(MAPPINGS).set('corelite-token', other).send({ auth_type_id: finance.id }), 404, 'AUTHTYPE_NOT_FOUND');
    expectProblem(await http().delete(`${MAPPINGS}/idp-default`).set('corelite-token', other), 404, 'IDP_MAPPING_NOT_FOUND');

    // Names and the internal slot are per tenant.
    await post(other, { name: 'FINANCE', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'fin-admins' }).expect(201);
    await post(other, { name: 'Corporate', auth_type: 'internal' }).expect(201);
    await post(admin, { name: 'Corporate', auth_type: 'internal' }).expect(201);

    expect((await http().get(`${CONFIGS}/${finance.id}`).set('corelite-token', admin).expect(200)).body).toEqual(finance);
    expect(await mappings.countDocuments({ tenantId: 'default', idp_id: 'idp-default', auth_type_id: finance.id })).toBe(1);
  });

  it('answers 403 to callers who are not System Admins and 401 without a token', async () => {
    const internal = (await post(admin, { name: 'Corporate', auth_type: 'internal' }).expect(201)).body;
    const bob = await platform.token({ sub: 'bob', groups: ['fin-admins'] });
    const calls = [
      () => http().post(CONFIGS).send({ name: 'Bob', auth_type: 'internal' }),
      () => http().get(CONFIGS),
      () => http().get(`${CONFIGS}/${internal.id}`),
      () => http().patch(patchPath(internal.id)).send({ name: 'Bob' }),
      () => http().delete(`${CONFIGS}/${internal.id}`),
    ];
    for (const call of calls) {
      expectProblem(await call().set('corelite-token', bob), 403, 'SYSTEM_ADMIN_REQUIRED');
      expectProblem(await call(), 401, 'TOKEN_MISSING');
    }
    expect((await http().get(`${CONFIGS}/${internal.id}`).set('corelite-token', admin).expect(200)).body).toEqual(internal);
  });
});
