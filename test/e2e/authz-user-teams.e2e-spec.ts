import { MembershipChanged } from '@lib/messaging';
import request from 'supertest';
import { AuditService } from '../../apps/authz/src/audit/audit.service';
import { OrgRepository } from '../../apps/authz/src/identity/org.repository';
import { RoleRepository } from '../../apps/authz/src/identity/role.repository';
import { UserRepository } from '../../apps/authz/src/identity/user.repository';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { NatsProbe, natsProbe } from '../support/nats-probe';

const V2 = '/authorization/v2';
const OTHER_TENANT = 'other';

describe('authz: teams, users and user-team membership', () => {
  let platform: Platform;
  let admin: string;
  let otherAdmin: string;
  let bob: string;
  let probe: NatsProbe | undefined;
  const events: MembershipChanged[] = [];

  const api = () => request(platform.authz.url);
  const post = (path: string, body: object, token = admin) => api().post(`${V2}${path}`).set('corelite-token', token).send(body);
  const get = (path: string, token = admin) => api().get(`${V2}${path}`).set('corelite-token', token);
  const createTeam = async (team_code: string, roles: string[] = [], extra: object = {}, token = admin) =>
    (await post('/teams', { team_code, org_code: 'org-a', roles, ...extra }, token).expect(201)).body;
  const createUser = async (user_id: string, token = admin) => (await post('/users', { user_id }, token).expect(201)).body;
  const eventsFor = (userId: string) => events.filter((event) => event.userIds?.includes(userId));
  /** Long enough for an event in flight on the local NATS to arrive. */
  const quietPeriod = () => new Promise((resolve) => setTimeout(resolve, 300));
  const teamsOf = async (userId: string) =>
    (await get(`/userteam/${encodeURIComponent(userId)}`).expect(200)).body.teams.map((t: { team_code: string }) => t.team_code);

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: `default,${OTHER_TENANT}` });
    admin = await platform.token({ sub: 'admin' });
    otherAdmin = await platform.token({ sub: 'admin', tid: OTHER_TENANT });
    bob = await platform.token({ sub: 'bob' });
    probe = await natsProbe(platform);
    await probe.bus.subscribe('authz.membership.changed', (event) => void events.push(event));
    await probe.flush();
    // bob logs in once: provisioned just in time
    await api().get('/core/authorization/v1/me').set('corelite-token', bob).expect(200);
  });
  afterAll(async () => {
    await probe?.close();
    await platform?.close();
  });

  describe('teams', () => {
    it('creates a team with its org and role records, reads it back, refuses duplicates', async () => {
      const created = await post('/teams', {
        team_code: 'FINOPS',
        org_code: 'org-finance',
        roles: ['Cost Reader', 'Budget Owner'],
        external_ref_id: 'finops',
      }).expect(201);
      expect(created.body).toMatchObject({
        team_code: 'FINOPS',
        org_code: 'org-finance',
        roles: ['Cost Reader', 'Budget Owner'],
        external_ref_id: 'finops',
        created_at: expect.any(String),
      });

      const read = await get('/teams/FINOPS').expect(200);
      expect(read.body).toEqual(created.body);
      expect(await platform.authz.app.get(OrgRepository).exists('default', { orgCode: 'org-finance' })).toBe(true);
      const roles = (await platform.authz.app.get(RoleRepository).find('default', {})).map((r) => r.name);
      expect(roles).toEqual(expect.arrayContaining(['System Admin', 'Cost Reader', 'Budget Owner']));
      expect(await platform.authz.app.get(OrgRepository).exists(OTHER_TENANT, { orgCode: 'org-finance' })).toBe(false);

      expectProblem(await post('/teams', { team_code: 'FINOPS', org_code: 'org-x', roles: [] }), 409, 'TEAM_CODE_TAKEN');
      expectProblem(
        await post('/teams', { team_code: 'FINOPS-2', org_code: 'org-x', roles: [], external_ref_id: 'finops' }),
        409,
        'EXTERNAL_REF_IN_USE',
      );
      // the refused calls left nothing behind
      expectProblem(await get('/teams/FINOPS-2'), 404, 'TEAM_NOT_FOUND');
      expect(await platform.authz.app.get(OrgRepository).exists('default', { orgCode: 'org-x' })).toBe(false);

      // the same code and reference are free in another tenant
      await post('/teams', { team_code: 'FINOPS', org_code: 'org-finance', roles: [], external_ref_id: 'finops' }, otherAdmin).expect(201);

      const audit = await platform.authz.app.get(AuditService).page('default', { resource: 'team', action: 'team.create' }, 50);
      expect(audit.items.map((r) => r.resourceId)).toContain('FINOPS');
    });

    it('validates the body', async () => {
      const res = await post('/teams', { team_code: '', org_code: 'o', roles: ['x'.repeat(65)], extra: 1 });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['extra', 'roles', 'team_code']);
      expectProblem(await post('/teams', { team_code: 'T', org_code: 'o' }), 400, 'VALIDATION_FAILED');
      expectProblem(await post('/teams', { team_code: 'T', org_code: 'o', roles: ['a', 'a'] }), 400, 'VALIDATION_FAILED');
      expectProblem(await post('/teams', { team_code: ' T', org_code: 'o', roles: [] }), 400, 'VALIDATION_FAILED');
    });

    it('lists teams page by page with a cursor', async () => {
      for (const code of ['PAGE-1', 'PAGE-2', 'PAGE-3']) await createTeam(code);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: request.Response = await get(`/teams?limit=2${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.items.map((t: { team_code: string }) => t.team_code));
        cursor = res.body.nextCursor;
        pages += 1;
      } while (cursor && pages < 20);
      expect(seen).toEqual(expect.arrayContaining(['INITIAL-SETUP-ADMIN', 'FINOPS', 'PAGE-1', 'PAGE-2', 'PAGE-3']));
      expect(new Set(seen).size).toBe(seen.length);
      expect(pages).toBeGreaterThanOrEqual(3);
      expectProblem(await get('/teams?limit=0'), 400, 'VALIDATION_FAILED');
      expectProblem(await get('/teams?cursor=not-a-cursor'), 400, 'VALIDATION_FAILED');
    });

    it("is for System Admins; another tenant's team reads as 404", async () => {
      expectProblem(await post('/teams', { team_code: 'BOBS', org_code: 'o', roles: ['System Admin'] }, bob), 403, 'SYSTEM_ADMIN_REQUIRED');
      expectProblem(await get('/teams', bob), 403, 'SYSTEM_ADMIN_REQUIRED');
      expectProblem(await get('/teams/BOBS'), 404, 'TEAM_NOT_FOUND');
      await createTeam('OTHER-ONLY', [], {}, otherAdmin);
      expectProblem(await get('/teams/OTHER-ONLY'), 404, 'TEAM_NOT_FOUND');
      await get('/teams/OTHER-ONLY', otherAdmin).expect(200);
      expectProblem(await api().get(`${V2}/teams`), 401, 'TOKEN_MISSING');
    });
  });

  describe('users', () => {
    it('adds a user before its first login, lists users, refuses duplicates', async () => {
      const created = await createUser('dora');
      expect(created).toMatchObject({ user_id: 'dora', created_at: expect.any(String) });
      expect(created).not.toHaveProperty('last_seen_at');
      expectProblem(await post('/users', { user_id: 'dora' }), 409, 'USER_EXISTS');
      expectProblem(await post('/users', { user_id: 'bob' }), 409, 'USER_EXISTS');
      expectProblem(await post('/users', { user_id: '' }), 400, 'VALIDATION_FAILED');
      expectProblem(await post('/users', { user_id: 'eve' }, bob), 403, 'SYSTEM_ADMIN_REQUIRED');

      const seen: { user_id: string; last_seen_at?: string }[] = [];
      let cursor: string | null = null;
      do {
        const res: request.Response = await get(`/users?limit=1${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
        seen.push(...res.body.items);
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen.map((u) => u.user_id)).toEqual(expect.arrayContaining(['admin', 'bob', 'dora']));
      expect(seen.find((u) => u.user_id === 'bob')?.last_seen_at).toEqual(expect.any(String));
      expect(seen.map((u) => u.user_id)).not.toContain('eve');

      // the other tenant does not see them
      const other = await get('/users?limit=500', otherAdmin).expect(200);
      expect(other.body.items.map((u: { user_id: string }) => u.user_id)).not.toContain('dora');
      expectProblem(await get('/users', bob), 403, 'SYSTEM_ADMIN_REQUIRED');
    });
  });

  describe('one user, one team', () => {
    beforeAll(async () => {
      await createTeam('OPS', ['Operator']);
      await createTeam('ADMINS-2', ['System Admin']);
      await createUser('frank');
      await createTeam('FOREIGN', [], {}, otherAdmin);
      await createUser('olga', otherAdmin);
    });

    it('adds, reads back, is idempotent, removes; audits and publishes each change', async () => {
      const added = await post('/userteam', { user_id: 'frank', team_code: 'OPS' }).expect(200);
      expect(added.body).toEqual({ user_id: 'frank', team_code: 'OPS', added: true });
      const read = await get('/userteam/frank').expect(200);
      expect(read.body).toEqual({
        user_id: 'frank',
        teams: [{ team_code: 'OPS', org_code: 'org-a', roles: ['Operator'] }],
        external_groups: [],
      });
      await eventually(async () => expect(eventsFor('frank')).toEqual([{ tenantId: 'default', userIds: ['frank'], teamCodes: ['OPS'] }]));

      const again = await post('/userteam', { user_id: 'frank', team_code: 'OPS' }).expect(200);
      expect(again.body).toEqual({ user_id: 'frank', team_code: 'OPS', added: false });

      const removed = await post('/userteam/remove', { user_id: 'frank', team_code: 'OPS' }).expect(200);
      expect(removed.body).toMatchObject({ user_id: 'frank', team_code: 'OPS', removed: true });
      expect(await teamsOf('frank')).toEqual([]);
      await eventually(async () => expect(eventsFor('frank')).toHaveLength(2));
      const removedAgain = await post('/userteam/remove', { user_id: 'frank', team_code: 'OPS' }).expect(200);
      expect(removedAgain.body.removed).toBe(false);
      // the no-op calls published nothing
      await quietPeriod();
      expect(eventsFor('frank')).toHaveLength(2);

      const audit = await platform.authz.app.get(AuditService).page('default', { resource: 'membership' }, 50);
      const actions = audit.items.filter((r) => r.resourceId === 'frank@OPS').map((r) => r.action);
      expect(actions).toEqual(['userteam.remove', 'userteam.add']);
    });

    it('a membership takes effect on the next request: a team holding System Admin makes the user one', async () => {
      const before = await api().get('/core/authorization/v1/me').set('corelite-token', bob).expect(200);
      expect(before.body.is_system_admin).toBe(false);
      await post('/userteam', { user_id: 'bob', team_code: 'ADMINS-2' }).expect(200);
      const after = await api().get('/core/authorization/v1/me').set('corelite-token', bob).expect(200);
      expect(after.body).toMatchObject({ is_system_admin: true, teams: [expect.objectContaining({ team_code: 'ADMINS-2' })] });
      await post('/userteam/remove', { user_id: 'bob', team_code: 'ADMINS-2' }).expect(200);
      const removed = await api().get('/core/authorization/v1/me').set('corelite-token', bob).expect(200);
      expect(removed.body.is_system_admin).toBe(false);
    });

    it("answers 404 TEAM_NOT_FOUND / USER_NOT_FOUND, also for another tenant's ids", async () => {
      expectProblem(await post('/userteam', { user_id: 'frank', team_code: 'NOPE' }), 404, 'TEAM_NOT_FOUND');
      expectProblem(await post('/userteam', { user_id: 'ghost', team_code: 'OPS' }), 404, 'USER_NOT_FOUND');
      expectProblem(await post('/userteam', { user_id: 'frank', team_code: 'FOREIGN' }), 404, 'TEAM_NOT_FOUND');
      expectProblem(await post('/userteam', { user_id: 'olga', team_code: 'OPS' }), 404, 'USER_NOT_FOUND');
      expectProblem(await post('/userteam/remove', { user_id: 'frank', team_code: 'NOPE' }), 404, 'TEAM_NOT_FOUND');
      expectProblem(await post('/userteam/remove', { user_id: 'ghost', team_code: 'OPS' }), 404, 'USER_NOT_FOUND');
      expectProblem(await get('/userteam/olga'), 404, 'USER_NOT_FOUND');
      expectProblem(await get('/userteam/ghost'), 404, 'USER_NOT_FOUND');
      expect(await teamsOf('frank')).toEqual([]);
      expectProblem(await post('/userteam', { user_id: 'frank' }), 400, 'VALIDATION_FAILED');
    });

    it('writes are for System Admins; a user may read only itself', async () => {
      expectProblem(await post('/userteam', { user_id: 'bob', team_code: 'ADMINS-2' }, bob), 403, 'SYSTEM_ADMIN_REQUIRED');
      expectProblem(await post('/userteam/remove', { user_id: 'frank', team_code: 'OPS' }, bob), 403, 'SYSTEM_ADMIN_REQUIRED');
      expect(await teamsOf('bob')).toEqual([]);
      expectProblem(await get('/userteam/frank', bob), 403, 'USER_TEAMS_FORBIDDEN');
      expectProblem(await get('/userteam/ghost', bob), 403, 'USER_TEAMS_FORBIDDEN');
      const self = await get('/userteam/bob', bob).expect(200);
      expect(self.body).toEqual({ user_id: 'bob', teams: [], external_groups: [] });
      const adminSelf = await get('/userteam/admin').expect(200);
      expect(adminSelf.body.teams).toEqual([{ team_code: 'INITIAL-SETUP-ADMIN', org_code: 'admin_org', roles: ['System Admin'] }]);
    });
  });

  describe('lists of users and teams', () => {
    beforeAll(async () => {
      for (const code of ['B1', 'B2', 'B3']) await createTeam(code, [`role-${code}`]);
      for (const id of ['u1', 'u2', 'u3']) await createUser(id);
      await post('/userteam', { user_id: 'u1', team_code: 'B1' }).expect(200);
    });

    it('adds every pair in one call, reporting pairs that already were memberships', async () => {
      const res = await post('/users/teams', { team_code_list: ['B1', 'B2'], user_id_list: ['u1', 'u2'] }).expect(200);
      expect(res.body).toEqual({
        added: [
          { user_id: 'u1', team_code: 'B2' },
          { user_id: 'u2', team_code: 'B1' },
          { user_id: 'u2', team_code: 'B2' },
        ],
        already_member: [{ user_id: 'u1', team_code: 'B1' }],
        unchanged_count: 1,
      });
      expect(await teamsOf('u1')).toEqual(['B1', 'B2']);
      expect(await teamsOf('u2')).toEqual(['B1', 'B2']);
      expect(await teamsOf('u3')).toEqual([]);
      await eventually(async () => {
        expect(eventsFor('u2')).toHaveLength(1);
        const [event] = eventsFor('u2');
        expect(event.tenantId).toBe('default');
        expect([...(event.userIds ?? [])].sort()).toEqual(['u1', 'u2']);
        expect([...(event.teamCodes ?? [])].sort()).toEqual(['B1', 'B2']);
      });

      const again = await post('/users/teams', { team_code_list: ['B1', 'B2'], user_id_list: ['u1', 'u2'] }).expect(200);
      expect(again.body).toMatchObject({ added: [], unchanged_count: 4 });
      expect(again.body.already_member).toHaveLength(4);
      await quietPeriod();
      expect(eventsFor('u2')).toHaveLength(1);

      const audit = await platform.authz.app.get(AuditService).page('default', { action: 'userteam.bulk_add' }, 50);
      expect(audit.items).toHaveLength(1);
      expect(audit.items[0].after).toMatchObject({ pairs: 3 });
    });

    it('removes every pair in one call, reporting pairs that were not memberships', async () => {
      const res = await post('/users/teams/remove', { team_code_list: ['B1', 'B2'], user_id_list: ['u1', 'u3'] }).expect(200);
      expect(res.body).toEqual({
        removed: [
          { user_id: 'u1', team_code: 'B1' },
          { user_id: 'u1', team_code: 'B2' },
        ],
        not_member: [
          { user_id: 'u3', team_code: 'B1' },
          { user_id: 'u3', team_code: 'B2' },
        ],
        unchanged_count: 2,
      });
      expect(await teamsOf('u1')).toEqual([]);
      expect(await teamsOf('u2')).toEqual(['B1', 'B2']);
      await eventually(async () => expect(events).toContainEqual({ tenantId: 'default', userIds: ['u1'], teamCodes: ['B1', 'B2'] }));
      expect(eventsFor('u3')).toEqual([]);
    });

    it('is all or nothing: one unknown team or user changes nothing', async () => {
      const add = await post('/users/teams', { team_code_list: ['B3', 'NOPE', 'FOREIGN'], user_id_list: ['u3', 'ghost', 'olga', 'u1'] });
      expectProblem(add, 404, 'TEAMS_OR_USERS_NOT_FOUND');
      expect(add.body).toMatchObject({ unknown_teams: ['NOPE', 'FOREIGN'], unknown_users: ['ghost', 'olga'] });
      expect(await teamsOf('u3')).toEqual([]);
      expect(await teamsOf('u1')).toEqual([]);

      const userOnly = await post('/users/teams', { team_code_list: ['B3'], user_id_list: ['u3', 'ghost'] });
      expectProblem(userOnly, 404, 'TEAMS_OR_USERS_NOT_FOUND');
      expect(userOnly.body).toMatchObject({ unknown_teams: [], unknown_users: ['ghost'] });
      expect(await teamsOf('u3')).toEqual([]);

      const remove = await post('/users/teams/remove', { team_code_list: ['B1', 'B2'], user_id_list: ['u2', 'ghost'] });
      expectProblem(remove, 404, 'TEAMS_OR_USERS_NOT_FOUND');
      expect(remove.body).toMatchObject({ unknown_teams: [], unknown_users: ['ghost'] });
      expect(await teamsOf('u2')).toEqual(['B1', 'B2']);
      await quietPeriod();
      expect(eventsFor('u3')).toEqual([]);
      expect(eventsFor('ghost')).toEqual([]);
      expect(eventsFor('u2')).toHaveLength(1);
    });

    it('validates the lists: 1 to 500 unique non-empty strings each', async () => {
      const bad = [
        { team_code_list: [], user_id_list: ['u1'] },
        { team_code_list: ['B1'], user_id_list: [] },
        { team_code_list: ['B1', 'B1'], user_id_list: ['u1'] },
        { team_code_list: ['B1'], user_id_list: [''] },
        { team_code_list: ['B1'], user_id_list: [7] },
        { team_code_list: 'B1', user_id_list: ['u1'] },
        { team_code_list: ['B1'] },
        { team_code_list: ['B1'], user_id_list: Array.from({ length: 501 }, (_, i) => `x${i}`) },
      ];
      for (const body of bad) {
        expectProblem(await post('/users/teams', body), 400, 'VALIDATION_FAILED');
        expectProblem(await post('/users/teams/remove', body), 400, 'VALIDATION_FAILED');
      }
      expect(await teamsOf('u1')).toEqual([]);
      const tooMany = {
        team_code_list: Array.from({ length: 21 }, (_, i) => `T${i}`),
        user_id_list: Array.from({ length: 500 }, (_, i) => `x${i}`),
      };
      expectProblem(await post('/users/teams', tooMany), 400, 'TOO_MANY_PAIRS');
    });

    it('is for System Admins only', async () => {
      expectProblem(await post('/users/teams', { team_code_list: ['B3'], user_id_list: ['bob'] }, bob), 403, 'SYSTEM_ADMIN_REQUIRED');
      expectProblem(await post('/users/teams/remove', { team_code_list: ['B1'], user_id_list: ['u2'] }, bob), 403, 'SYSTEM_ADMIN_REQUIRED');
      expect(await teamsOf('bob')).toEqual([]);
      expect(await teamsOf('u2')).toEqual(['B1', 'B2']);
    });

    it('handles the largest lists (500 users) in one call', async () => {
      const ids = Array.from({ length: 500 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`);
      await platform.authz.app.get(UserRepository).insertBulk(
        'default',
        ids.map((userId) => ({ userId, idpId: 'idp-default' })),
      );
      const res = await post('/users/teams', { team_code_list: ['B3'], user_id_list: ids }).expect(200);
      expect(res.body.added).toHaveLength(500);
      expect(res.body.unchanged_count).toBe(0);
      expect(await teamsOf('bulk-499')).toEqual(['B3']);
      const removed = await post('/users/teams/remove', { team_code_list: ['B3', 'B2'], user_id_list: ids }).expect(200);
      expect(removed.body.removed).toHaveLength(500);
      expect(removed.body.unchanged_count).toBe(500);
      expect(await teamsOf('bulk-000')).toEqual([]);
    });
  });

  it('documents the endpoints in the OpenAPI document', async () => {
    const doc = (await api().get('/docs/authz/openapi.json').expect(200)).body;
    for (const path of [
      '/authorization/v2/teams',
      '/authorization/v2/teams/{team_code}',
      '/authorization/v2/users',
      '/authorization/v2/userteam',
      '/authorization/v2/userteam/remove',
      '/authorization/v2/userteam/{userid}',
      '/authorization/v2/users/teams',
      '/authorization/v2/users/teams/remove',
    ]) {
      expect(doc.paths).toHaveProperty([path]);
    }
    expect(JSON.stringify(doc.paths['/authorization/v2/userteam/{userid}'])).toContain('external_groups_error');
    expect(doc.components.schemas.UserTeamsResponse.properties).toHaveProperty('external_groups_error');
  });
});
