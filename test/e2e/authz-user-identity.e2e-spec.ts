import { INestApplication } from '@nestjs/common';
import { MongoClient } from 'mongodb';
import request from 'supertest';
import { createAuthzApp } from '../../apps/authz/src/create-authz-app';
import { PrincipalService } from '../../apps/authz/src/identity/principal.service';
import { Platform, setNotablescan, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const V2 = '/authorization/v2';
const SECOND_IDP = 'idp-second';
const ADMIN_TEAM = 'INITIAL-SETUP-ADMIN';

/** Issue item 2: a user is (tenant, IdP, subject), so a second IdP of the tenant cannot mint the bootstrap admin. */
describe('authz: users are keyed by (tenant, IdP, subject)', () => {
  let platform: Platform;
  let admin: string;
  let intruder: string;

  const api = () => request(platform.authz.url);
  const post = (path: string, body: object, token = admin) => api().post(`${V2}${path}`).set('corelite-token', token).send(body);
  const get = (path: string, token = admin) => api().get(`${V2}${path}`).set('corelite-token', token);
  const me = (token: string) => api().get('/core/authorization/v1/me').set('corelite-token', token);

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    intruder = await platform.token({ sub: 'admin', idp: SECOND_IDP });
  });
  afterAll(() => platform?.close());

  it('a token sub=admin of a second IdP of the same tenant is no System Admin and sees no admin_org membership', async () => {
    const self = await me(intruder);
    expect(self.body.is_system_admin).not.toBe(true);
    expect(JSON.stringify(self.body)).not.toContain('admin_org');
    expect((await get('/users', intruder)).status).toBe(403);
    expect((await post('/teams', { team_code: 'PWNED', org_code: 'o', roles: ['System Admin'] }, intruder)).status).toBe(403);
    const teams = await get('/userteam/admin', intruder);
    expect(JSON.stringify(teams.body)).not.toContain('admin_org');
    expect(JSON.stringify(teams.body)).not.toContain(ADMIN_TEAM);
    // the bootstrap admin of the default IdP is untouched
    expect((await me(admin).expect(200)).body).toMatchObject({ is_system_admin: true, idp_id: 'idp-default' });
  });

  it("keeps a user and its memberships per IdP: the routes take an optional idp_id, the caller's IdP by default", async () => {
    // the second IdP's admin was provisioned by its first token, apart from the default IdP's
    expectProblem(await post('/users', { user_id: 'admin', idp_id: SECOND_IDP }), 409, 'USER_EXISTS');
    expect((await post('/users', { user_id: 'carol', idp_id: SECOND_IDP }).expect(201)).body).toMatchObject({
      user_id: 'carol',
      idp_id: SECOND_IDP,
    });
    expect((await post('/users', { user_id: 'carol' }).expect(201)).body).toMatchObject({ user_id: 'carol', idp_id: 'idp-default' });
    expectProblem(await post('/users', { user_id: 'carol' }), 409, 'USER_EXISTS');
    expectProblem(await post('/users', { user_id: 'dave', idp_id: 'idp/../x' }), 400, 'VALIDATION_FAILED');

    const listed = (await get('/users?limit=500').expect(200)).body.items as { user_id: string; idp_id: string }[];
    expect(
      listed
        .filter((user) => user.user_id === 'admin')
        .map((user) => user.idp_id)
        .sort(),
    ).toEqual(['idp-default', SECOND_IDP]);

    expect((await post('/userteam', { user_id: 'admin', team_code: ADMIN_TEAM, idp_id: SECOND_IDP }).expect(200)).body).toEqual({
      user_id: 'admin',
      team_code: ADMIN_TEAM,
      added: true,
    });
    expect((await me(intruder).expect(200)).body).toMatchObject({ is_system_admin: true, idp_id: SECOND_IDP });
    expect((await get(`/userteam/admin?idp_id=${SECOND_IDP}`).expect(200)).body.teams).toEqual([
      { team_code: ADMIN_TEAM, org_code: 'admin_org', roles: ['System Admin'] },
    ]);

    await post('/userteam/remove', { user_id: 'admin', team_code: ADMIN_TEAM, idp_id: SECOND_IDP }).expect(200);
    expect((await me(intruder)).body.is_system_admin).not.toBe(true);
    expect((await get(`/userteam/admin?idp_id=${SECOND_IDP}`).expect(200)).body.teams).toEqual([]);

    // the lists take one IdP for all their users
    const bulk = await post('/users/teams', { user_id_list: ['admin'], team_code_list: [ADMIN_TEAM], idp_id: SECOND_IDP }).expect(200);
    expect(bulk.body.added).toEqual([{ user_id: 'admin', team_code: ADMIN_TEAM }]);
    expect((await me(intruder).expect(200)).body.is_system_admin).toBe(true);
    await post('/users/teams/remove', { user_id_list: ['admin'], team_code_list: [ADMIN_TEAM], idp_id: SECOND_IDP }).expect(200);
    expect((await me(intruder)).body.is_system_admin).not.toBe(true);
    // a user of the default IdP only is unknown as a user of the second
    await post('/users', { user_id: 'erin' }).expect(201);
    const unknown = await post('/users/teams', { user_id_list: ['carol', 'erin'], team_code_list: [ADMIN_TEAM], idp_id: SECOND_IDP });
    expectProblem(unknown, 404, 'TEAMS_OR_USERS_NOT_FOUND');
    expect(unknown.body.unknown_users).toEqual(['erin']);

    // all the while, the default IdP's admin stayed the System Admin
    expect((await me(admin).expect(200)).body.is_system_admin).toBe(true);
    expect((await get('/userteam/admin').expect(200)).body.teams).toEqual([
      { team_code: ADMIN_TEAM, org_code: 'admin_org', roles: ['System Admin'] },
    ]);
  });

  it('bootstraps the admin of BOOTSTRAP_ADMIN_IDP, and refuses to start with an unsafe one', async () => {
    await expect(createAuthzApp({ ...platform.env, BOOTSTRAP_ADMIN_IDP: 'idp/x' })).rejects.toThrow(/BOOTSTRAP_ADMIN_IDP/);
    const { app } = await createAuthzApp({ ...platform.env, BOOTSTRAP_TENANTS: 'corp', BOOTSTRAP_ADMIN_IDP: 'corp-sso' });
    try {
      await app.init();
    } finally {
      await app.close();
    }
    const corpAdmin = await platform.token({ sub: 'admin', tid: 'corp', idp: 'corp-sso' });
    expect((await me(corpAdmin).expect(200)).body.is_system_admin).toBe(true);
    expect((await me(await platform.token({ sub: 'admin', tid: 'corp' }))).body.is_system_admin).not.toBe(true);
  });

  it('migrates users and memberships stored without an IdP to the default IdP at start-up, once', async () => {
    const uri = new URL(platform.env.MONGODB_URI as string);
    uri.pathname = `${uri.pathname}_legacy`;
    const client = await MongoClient.connect(uri.toString());
    let app: INestApplication | undefined;
    await setNotablescan(uri.toString(), false);
    try {
      const db = client.db();
      await db.collection('users').createIndex({ tenantId: 1, userId: 1 }, { unique: true });
      await db.collection('memberships').createIndex({ tenantId: 1, userId: 1, teamCode: 1 }, { unique: true });
      await db.collection('users').insertMany([
        { tenantId: 'default', userId: 'legacy' },
        { tenantId: 'old', userId: 'legacy' },
      ]);
      await db.collection('memberships').insertOne({ tenantId: 'default', userId: 'legacy', teamCode: ADMIN_TEAM });

      for (let start = 0; start < 2; start += 1) {
        app = (await createAuthzApp({ ...platform.env, MONGODB_URI: uri.toString() })).app;
        await app.init();
        const resolved = await app
          .get(PrincipalService)
          .resolveAccess({ tenantId: 'default', userId: 'legacy', idpId: 'idp-default', groups: [] });
        expect(resolved.isSystemAdmin).toBe(true);
        const elsewhere = await app
          .get(PrincipalService)
          .resolveAccess({ tenantId: 'default', userId: 'legacy', idpId: SECOND_IDP, groups: [] });
        expect(elsewhere.isSystemAdmin).toBe(false);
        await app.close();
        app = undefined;
      }
      const users = await db
        .collection('users')
        .find({ userId: 'legacy', idpId: 'idp-default' }, { projection: { _id: 0, tenantId: 1, idpId: 1 } })
        .toArray();
      expect(users).toEqual(
        expect.arrayContaining([
          { tenantId: 'default', idpId: 'idp-default' },
          { tenantId: 'old', idpId: 'idp-default' },
        ]),
      );
      expect(await db.collection('memberships').countDocuments({ idpId: { $exists: false } })).toBe(0);
      const indexes = (await db.collection('users').indexes()).map((index) => JSON.stringify(index.key));
      expect(indexes).not.toContain(JSON.stringify({ tenantId: 1, userId: 1 }));
      // the second IdP's `legacy`, provisioned by its resolution, is a user of its own
      expect(await db.collection('users').countDocuments({ tenantId: 'default', userId: 'legacy' })).toBe(2);
    } finally {
      await app?.close();
      await client.db().dropDatabase();
      await client.close();
      await setNotablescan(uri.toString(), true);
    }
  });
});
