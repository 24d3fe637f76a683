import request from 'supertest';
import { ProblemException } from '@lib/core';
import { Directory } from '../../apps/authz/src/directory/directory';
import { startComponent, stopComponent } from '../../tools/stack';
import { eventually, Platform, startPlatform } from '../support/platform';

const profile = process.env.STACK_PROFILE ?? 'test';
const quiet = { profile, log: () => undefined };
const V2 = '/authorization/v2';
const OTHER_TENANT = 'other';

interface LdapValue {
  base: string;
  host: string;
  username: string;
  password: string;
  useSSL: boolean;
}

/** The stack's directory as an `_ldap_config` value; `host` in the `hostname:port` form. */
function stackLdapValue(): LdapValue {
  const url = new URL(process.env.LDAP_URL ?? 'ldap://127.0.0.1:13890');
  return {
    base: process.env.LDAP_BASE_DN ?? 'dc=corelite,dc=local',
    host: `${url.hostname}:${url.port || (url.protocol === 'ldaps:' ? 636 : 389)}`,
    username: process.env.LDAP_BIND_DN ?? 'cn=admin,dc=corelite,dc=local',
    password: process.env.LDAP_BIND_PASSWORD ?? 'admin-secret',
    useSSL: url.protocol === 'ldaps:',
  };
}

async function problemOf(promise: Promise<unknown>): Promise<ProblemException> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    return error as ProblemException;
  }
  throw new Error('expected a problem');
}

describe('authz: directory (LDAP) and the external groups of a user', () => {
  let platform: Platform;
  let admin: string;
  let directory: Directory;
  const ldap = stackLdapValue();

  const api = () => request(platform.authz.url);
  const configure = async (value: LdapValue, token = admin) =>
    api()
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', token)
      .send({ configurationkey: '_ldap_config', configurationvalue: value })
      .expect(200);
  const userTeams = (userId: string, token = admin) =>
    api()
      .get(`${V2}/userteam/${encodeURIComponent(userId)}`)
      .set('corelite-token', token);
  const groupsOf = async (userId: string) => {
    const res = await userTeams(userId).expect(200);
    expect(res.body).not.toHaveProperty('external_groups_error');
    return res.body.external_groups;
  };

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: `default,${OTHER_TENANT}` });
    admin = await platform.token({ sub: 'admin' });
    directory = platform.authz.app.get(Directory);
    for (const user_id of ['alice', 'carol', 'dora', '*)(uid=*', '*', 'alice)(|(uid=*']) {
      await api().post(`${V2}/users`).set('corelite-token', admin).send({ user_id }).expect(201);
    }
    await api()
      .post(`${V2}/teams`)
      .set('corelite-token', admin)
      .send({ team_code: 'CLOUD', org_code: 'org-cloud', roles: ['Cloud Admin'], external_ref_id: 'cloud-admins' })
      .expect(201);
    await api().post(`${V2}/userteam`).set('corelite-token', admin).send({ user_id: 'alice', team_code: 'CLOUD' }).expect(200);
  });
  afterAll(async () => {
    await startComponent('ldap', quiet);
    await platform?.close();
  });

  it('without a directory: no external groups, and the port answers 404 DIRECTORY_NOT_CONFIGURED', async () => {
    const res = await userTeams('alice').expect(200);
    expect(res.body).toEqual({
      user_id: 'alice',
      teams: [{ team_code: 'CLOUD', org_code: 'org-cloud', roles: ['Cloud Admin'] }],
      external_groups: [],
    });
    const problem = await problemOf(directory.groupsOf('default', 'alice'));
    expect(problem.getStatus()).toBe(404);
    expect(problem.code).toBe('DIRECTORY_NOT_CONFIGURED');
  });

  it('reads the groups of a user from the directory: member=<DN> and memberUid=<uid>, sorted', async () => {
    await configure(ldap);
    const alice = await userTeams('alice').expect(200);
    expect(alice.body).toEqual({
      user_id: 'alice',
      teams: [{ team_code: 'CLOUD', org_code: 'org-cloud', roles: ['Cloud Admin'] }],
      external_groups: ['cloud-admins', 'finops'],
    });
    // bob reads himself; `developers` is a posixGroup listing him by memberUid
    const bob = await platform.token({ sub: 'bob' });
    const self = await userTeams('bob', bob).expect(200);
    expect(self.body).toEqual({ user_id: 'bob', teams: [], external_groups: ['developers', 'finops'] });
    expect(await groupsOf('carol')).toEqual(['developers']);
    expect(await groupsOf('admin')).toEqual(['cloud-admins']);
    expect(await directory.groupsOf('default', 'alice')).toEqual(['cloud-admins', 'finops']);
  });

  it('a user the directory does not know has no external groups', async () => {
    expect(await groupsOf('dora')).toEqual([]);
    expect(await directory.groupsOf('default', 'nobody-at-all')).toEqual([]);
  });

  it('escapes every value put into a filter: injection attempts find nothing', async () => {
    expect(await groupsOf('*)(uid=*')).toEqual([]);
    expect(await groupsOf('*')).toEqual([]);
    expect(await groupsOf('alice)(|(uid=*')).toEqual([]);
    for (const userId of ['*)(uid=*', '*', 'alice)(|(uid=*', 'bob)(memberUid=*', '\\2a', 'alice\u0000']) {
      expect(await directory.groupsOf('default', userId)).toEqual([]);
    }
  });

  it('accepts a full ldap:// URL as the host', async () => {
    await configure({ ...ldap, host: `ldap://${ldap.host}` });
    expect(await groupsOf('alice')).toEqual(['cloud-admins', 'finops']);
    await configure(ldap);
  });

  it('keeps tenants apart: another tenant has no directory', async () => {
    const otherAdmin = await platform.token({ sub: 'admin', tid: OTHER_TENANT });
    const res = await userTeams('admin', otherAdmin).expect(200);
    expect(res.body).toEqual({
      user_id: 'admin',
      teams: [{ team_code: 'INITIAL-SETUP-ADMIN', org_code: 'admin_org', roles: ['System Admin'] }],
      external_groups: [],
    });
    expect((await problemOf(directory.groupsOf(OTHER_TENANT, 'alice'))).code).toBe('DIRECTORY_NOT_CONFIGURED');
  });

  it('a wrong bind password: 200 with external_groups_error DIRECTORY_CREDENTIALS_REJECTED, the password nowhere', async () => {
    const wrong = 'not-the-Secret-42';
    await configure({ ...ldap, password: wrong });
    try {
      const res = await userTeams('alice').expect(200);
      expect(res.body).toEqual({
        user_id: 'alice',
        teams: [{ team_code: 'CLOUD', org_code: 'org-cloud', roles: ['Cloud Admin'] }],
        external_groups: [],
        external_groups_error: { code: 'DIRECTORY_CREDENTIALS_REJECTED', detail: expect.any(String) },
      });
      expect(JSON.stringify(res.body)).not.toContain(wrong);
      const problem = await problemOf(directory.groupsOf('default', 'alice'));
      expect(problem.getStatus()).toBe(503);
      expect(problem.code).toBe('DIRECTORY_CREDENTIALS_REJECTED');
      expect(JSON.stringify(problem.toProblem())).not.toContain(wrong);
    } finally {
      await configure(ldap);
    }
    expect(await groupsOf('alice')).toEqual(['cloud-admins', 'finops']);
  });

  it('an address where nothing listens: 200 with external_groups_error DIRECTORY_UNAVAILABLE', async () => {
    await configure({ ...ldap, host: '127.0.0.1:1' });
    try {
      const res = await userTeams('alice').expect(200);
      expect(res.body).toMatchObject({
        teams: [{ team_code: 'CLOUD' }],
        external_groups: [],
        external_groups_error: { code: 'DIRECTORY_UNAVAILABLE' },
      });
    } finally {
      await configure(ldap);
    }
  });

  it('slapd stopped: the read still answers (teams from the database, DIRECTORY_UNAVAILABLE), and heals when it is back', async () => {
    expect(await groupsOf('alice')).toEqual(['cloud-admins', 'finops']);
    await stopComponent('ldap', quiet);
    try {
      const started = Date.now();
      const res = await userTeams('alice').expect(200);
      expect(res.body).toEqual({
        user_id: 'alice',
        teams: [{ team_code: 'CLOUD', org_code: 'org-cloud', roles: ['Cloud Admin'] }],
        external_groups: [],
        external_groups_error: { code: 'DIRECTORY_UNAVAILABLE', detail: expect.any(String) },
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      const problem = await problemOf(directory.groupsOf('default', 'bob'));
      expect(problem.getStatus()).toBe(503);
      expect(problem.code).toBe('DIRECTORY_UNAVAILABLE');
      // everything else keeps working
      await request(platform.authz.directUrl).get('/health/ready').expect(200);
      await api().post(`${V2}/userteam`).set('corelite-token', admin).send({ user_id: 'carol', team_code: 'CLOUD' }).expect(200);
      const carol = await userTeams('carol').expect(200);
      expect(carol.body).toMatchObject({
        teams: [{ team_code: 'CLOUD' }],
        external_groups: [],
        external_groups_error: { code: 'DIRECTORY_UNAVAILABLE' },
      });
    } finally {
      await startComponent('ldap', quiet);
    }
    await eventually(async () => {
      expect(await groupsOf('alice')).toEqual(['cloud-admins', 'finops']);
    }, 20_000);
    expect(await groupsOf('carol')).toEqual(['developers']);
  });
});
