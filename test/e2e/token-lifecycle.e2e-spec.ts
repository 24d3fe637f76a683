import { INestApplication } from '@nestjs/common';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { createAuthzApp } from '../../apps/authz/src/create-authz-app';
import { createCostassetApp } from '../../apps/costasset/src/create-costasset-app';
import { eventually, Platform, setNotablescan, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const BASE = '/core/authorization/v1';
const V2 = '/authorization/v2';
/** A member route of each service. */
const AUTHZ_ROUTE = `${BASE}/me`;
const COSTASSET_ROUTE = '/api/costasset/v1/currency/defaultCurrency';
const TEAM = 'TL-TEAM';

/**
 * Token lifecycle, each case written as the exploit: refresh tokens rotate and a reused one
 * revokes its session; a revoked session's tokens are refused; a disabled user's tokens are
 * refused within a second by every instance of both services (two of each here).
 */
describe('token lifecycle: rotation, reuse, revocation, disabled users', () => {
  let platform: Platform;
  let admin: string;
  const extra: INestApplication[] = [];
  /** Every instance: authz and costasset each twice, by their own addresses. */
  const instances: { service: 'authz' | 'costasset'; url: string }[] = [];

  const api = () => request(platform.authz.url);
  const refresh = (token: string) => api().post(`${BASE}/token/refresh`).send({ refresh_token: token });
  const revoke = (body: object) => api().post(`${BASE}/token/revoke`).send(body);
  const call = (instance: { service: 'authz' | 'costasset'; url: string }, token: string) =>
    request(instance.url)
      .get(instance.service === 'authz' ? AUTHZ_ROUTE : COSTASSET_ROUTE)
      .set('corelite-token', token);
  /** Signs a user in as a login would: exchanges a sign-in refresh token. */
  const signIn = async (sub: string) => {
    const res = await refresh(await platform.refreshToken({ sub }));
    expect(res.status).toBe(200);
    return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
  };
  const addMember = async (userId: string) => {
    await api().post(`${V2}/users`).set('corelite-token', admin).send({ user_id: userId }).expect(201);
    await api().post(`${V2}/userteam`).set('corelite-token', admin).send({ user_id: userId, team_code: TEAM }).expect(200);
  };
  const listen = async (app: INestApplication) => {
    await app.listen(0, '127.0.0.1');
    return (await app.getUrl()).replace('[::1]', '127.0.0.1');
  };

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    await api().post(`${V2}/teams`).set('corelite-token', admin).send({ team_code: TEAM, org_code: 'tl-org', roles: [] }).expect(201);
    // a second instance of each service, on the same database and NATS namespace
    await setNotablescan(platform.env.MONGODB_URI as string, false);
    try {
      const authz2 = (await createAuthzApp(platform.env)).app;
      extra.push(authz2);
      const authz2Url = await listen(authz2);
      const costasset2 = (await createCostassetApp(platform.env)).app;
      extra.push(costasset2);
      const costasset2Url = await listen(costasset2);
      instances.push(
        { service: 'authz', url: platform.authz.directUrl },
        { service: 'authz', url: authz2Url },
        { service: 'costasset', url: platform.costasset.directUrl },
        { service: 'costasset', url: costasset2Url },
      );
    } finally {
      await setNotablescan(platform.env.MONGODB_URI as string, true);
    }
  }, 120_000);
  afterAll(async () => {
    for (const app of extra) await app.close();
    await platform?.close();
  });

  it('refuses a spent refresh token, and its reuse revokes the whole session: the newer tokens stop working too', async () => {
    await addMember('tl-rotate');
    const signInToken = await platform.refreshToken({ sub: 'tl-rotate' });
    const first = await refresh(signInToken).expect(200);
    // the exploit: a copy of the spent sign-in token is exchanged again
    expectProblem(await refresh(signInToken), 401, 'TOKEN_REVOKED');
    expect(first.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    expectProblem(await refresh(first.body.refresh_token), 401, 'TOKEN_REVOKED');
    expectProblem(await call(instances[0], first.body.access_token), 401, 'TOKEN_REVOKED');
    expectProblem(await call(instances[2], first.body.access_token), 401, 'TOKEN_REVOKED');

    // a session used as it should be: each refresh answers the next token of the session
    const session = await signIn('tl-rotate');
    const second = await refresh(session.refresh).expect(200);
    const [old, next] = [decodeJwt(session.refresh), decodeJwt(second.body.refresh_token)];
    expect(next).toMatchObject({ typ: 'refresh', sub: 'tl-rotate', sid: old.sid });
    // rotation never lengthens the session (a second may tick between the two clocks that count it)
    expect(Math.abs((next.exp as number) - (old.exp as number))).toBeLessThanOrEqual(1);
    expect(next.jti).not.toBe(old.jti);
    expect(decodeJwt(second.body.access_token)).toMatchObject({ typ: 'access', sid: old.sid });
    for (const instance of instances) await call(instance, second.body.access_token).expect(200);

    // a thief replays the older token: the session ends for the thief and for its owner
    expectProblem(await refresh(session.refresh), 401, 'TOKEN_REVOKED');
    expectProblem(await refresh(second.body.refresh_token), 401, 'TOKEN_REVOKED');
    await eventually(
      async () => {
        for (const instance of instances) expectProblem(await call(instance, second.body.access_token), 401, 'TOKEN_REVOKED');
      },
      1_000,
      50,
    );
  });

  it('lets one of two concurrent refreshes of one token win, and treats the other as reuse', async () => {
    await addMember('tl-race');
    const signInToken = await platform.refreshToken({ sub: 'tl-race' });
    const answers = await Promise.all([refresh(signInToken), refresh(signInToken)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 401]);
    const winner = answers.find((res) => res.status === 200)!;
    expectProblem(await refresh(winner.body.refresh_token), 401, 'TOKEN_REVOKED');
  });

  it(
    'revokes a session (RFC 7009): its refresh token and its access ' + 'tokens are refused at once; other tokens of the user are not',
    async () => {
      await addMember('tl-revoke');
      const session = await signIn('tl-revoke');
      const other = await signIn('tl-revoke');
      const devToken = await platform.token({ sub: 'tl-revoke' });
      for (const instance of instances) await call(instance, session.access).expect(200);

      const revoked = await revoke({ token: session.refresh }).expect(200);
      expect(revoked.text).toBe('');
      expectProblem(await refresh(session.refresh), 401, 'TOKEN_REVOKED');
      await eventually(
        async () => {
          for (const instance of instances) expectProblem(await call(instance, session.access), 401, 'TOKEN_REVOKED');
        },
        1_000,
        50,
      );
      for (const instance of instances) {
        await call(instance, other.access).expect(200);
        await call(instance, devToken).expect(200);
      }
      await refresh(other.refresh).expect(200);

      // a sign-in token revoked before its first use can never be used
      const unused = await platform.refreshToken({ sub: 'tl-revoke' });
      await revoke({ token: unused }).expect(200);
      expectProblem(await refresh(unused), 401, 'TOKEN_REVOKED');

      // nothing to revoke is no error; the body is still checked
      for (const token of [session.refresh, 'not-a-token', devToken, await platform.refreshToken({ sub: 'tl-revoke', tid: 'elsewhere' })]) {
        await revoke({ token }).expect(200);
      }
      await revoke({ token: other.refresh, token_type_hint: 'refresh_token' }).expect(200);
      expectProblem(await revoke({ token: 'x', extra: 1 }), 400, 'VALIDATION_FAILED', ['extra']);
      expectProblem(await revoke({}), 400, 'VALIDATION_FAILED', ['token']);
    },
  );

  it("refuses a disabled user's tokens within a second on every instance of both services, and enabling gives access back", async () => {
    await addMember('tl-disabled');
    const session = await signIn('tl-disabled');
    const devToken = await platform.token({ sub: 'tl-disabled' });
    // every instance has the user's principal cached
    for (const instance of instances) {
      await call(instance, session.access).expect(200);
      await call(instance, devToken).expect(200);
    }

    const member = await platform.token({ sub: 'tl-rotate' });
    expectProblem(await api().post(`${V2}/users/tl-disabled/disable`).set('corelite-token', member), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await api().post(`${V2}/users/admin/disable`).set('corelite-token', admin), 409, 'CANNOT_DISABLE_SELF');
    expectProblem(await api().post(`${V2}/users/tl-nobody/disable`).set('corelite-token', admin), 404, 'USER_NOT_FOUND');

    const disabled = await api().post(`${V2}/users/tl-disabled/disable`).set('corelite-token', admin).expect(200);
    const at = Date.now();
    expect(disabled.body).toEqual({ user_id: 'tl-disabled', idp_id: 'idp-default', disabled: true, revoked_sessions: 1 });
    await eventually(
      async () => {
        for (const instance of instances) {
          expectProblem(await call(instance, devToken), 401, 'USER_DISABLED');
          expectProblem(await call(instance, session.access), 401, 'USER_DISABLED');
        }
      },
      1_000,
      50,
    );
    expect(Date.now() - at).toBeLessThan(1_000);
    expectProblem(await refresh(session.refresh), 401, 'USER_DISABLED');
    expectProblem(await refresh(await platform.refreshToken({ sub: 'tl-disabled' })), 401, 'USER_DISABLED');
    const listed = await api().get(`${V2}/users`).set('corelite-token', admin).query({ limit: 100 }).expect(200);
    expect(listed.body.items.find((user: { user_id: string }) => user.user_id === 'tl-disabled')).toMatchObject({
      disabled_at: expect.any(String),
    });

    const enabled = await api().post(`${V2}/users/tl-disabled/enable`).set('corelite-token', admin).expect(200);
    expect(enabled.body).toEqual({ user_id: 'tl-disabled', idp_id: 'idp-default', disabled: false });
    for (const instance of instances) await call(instance, devToken).expect(200);
    // the sessions revoked by the disabling stay revoked: the user signs in again
    for (const instance of instances) expectProblem(await call(instance, session.access), 401, 'TOKEN_REVOKED');
    const again = await signIn('tl-disabled');
    for (const instance of instances) await call(instance, again.access).expect(200);
  });

  it('re-reads hybrid groups at refresh: without a directory the sign-in groups stay, with one the directory decides', async () => {
    const configuration = await api()
      .post(`${BASE}/authtype/configurations`)
      .set('corelite-token', admin)
      .send({ name: 'TL Cloud', auth_type: 'hybrid', initial_system_admin_team_external_ref_id: 'cloud-admins' })
      .expect(201);
    await api().post(`${BASE}/configuration/idp`).set('corelite-token', admin).send({ auth_type_id: configuration.body.id }).expect(201);

    // bob claims the System Admin group of the configuration; the directory lists him in finops and developers only
    const forged = await platform.refreshToken({ sub: 'bob', groups: ['cloud-admins'] });
    const withoutDirectory = await refresh(forged).expect(200);
    expect(decodeJwt(withoutDirectory.body.access_token)).toMatchObject({ authType: 'hybrid', groups: ['cloud-admins'] });

    const url = new URL(process.env.LDAP_URL ?? 'ldap://127.0.0.1:13890');
    await api()
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', admin)
      .send({
        configurationkey: '_ldap_config',
        configurationvalue: {
          base: process.env.LDAP_BASE_DN ?? 'dc=corelite,dc=local',
          host: `${url.hostname}:${url.port || 389}`,
          username: process.env.LDAP_BIND_DN ?? 'cn=admin,dc=corelite,dc=local',
          password: process.env.LDAP_BIND_PASSWORD ?? 'admin-secret',
          useSSL: false,
        },
      })
      .expect(200);
    // the exploit: a sign-in token claiming the admins' group
    const signedIn = await refresh(await platform.refreshToken({ sub: 'bob', groups: ['cloud-admins'] })).expect(200);
    expect((decodeJwt(signedIn.body.access_token).groups as string[]).sort()).toEqual(['developers', 'finops']);
    // and a session begun before the directory was configured
    const rotated = await refresh(withoutDirectory.body.refresh_token).expect(200);
    const claims = decodeJwt(rotated.body.access_token);
    expect((claims.groups as string[]).sort()).toEqual(['developers', 'finops']);
    expect(decodeJwt(rotated.body.refresh_token).groups).toEqual(claims.groups);
  });
});
