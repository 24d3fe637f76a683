import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import request from 'supertest';
import { loadSigningKey } from '@lib/auth';
import { Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const V2 = '/authorization/v2';
const EVIL_ORIGIN = 'https://evil.example';

/**
 * Where a request's token may come from (issue item 3: no ambient credentials) and what its
 * identity claims may hold. Each test is the exploit: it must change nothing.
 */
describe('request credentials: no ambient credentials, safe identity claims', () => {
  let platform: Platform;
  let admin: string;

  const api = () => request(platform.authz.url);
  const teamsOf = async (userId: string) =>
    (await api().get(`${V2}/userteam/${userId}`).set('corelite-token', admin).expect(200)).body.teams.map(
      (team: { team_code: string }) => team.team_code,
    );

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    await api()
      .post(`${V2}/teams`)
      .set('corelite-token', admin)
      .send({ team_code: 'CSRF-ADMINS', org_code: 'org-csrf', roles: ['System Admin'] })
      .expect(201);
    await api().post(`${V2}/users`).set('corelite-token', admin).send({ user_id: 'mallory' }).expect(201);
  });
  afterAll(() => platform?.close());

  it('a cross-site form POST carrying the token only in a cookie changes no membership', async () => {
    const res = await api()
      .post(`${V2}/userteam`)
      .set('Origin', EVIL_ORIGIN)
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Cookie', `corelite-token=${admin}`)
      .type('form')
      .send('user_id=mallory&team_code=CSRF-ADMINS');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await teamsOf('mallory')).toEqual([]);
  });

  it('a cookie authenticates nothing, also with a JSON body and no Origin', async () => {
    const res = await api()
      .post(`${V2}/userteam`)
      .set('Cookie', `corelite-token=${admin}`)
      .send({ user_id: 'mallory', team_code: 'CSRF-ADMINS' });
    expectProblem(res, 401, 'TOKEN_MISSING');
    expectProblem(await api().get('/core/authorization/v1/me').set('Cookie', `corelite-token=${admin}`), 401, 'TOKEN_MISSING');
    const costasset = await request(platform.costasset.url).get('/api/costasset/extensions/test').set('Cookie', `corelite-token=${admin}`);
    expectProblem(costasset, 401, 'TOKEN_MISSING');
    expect(await teamsOf('mallory')).toEqual([]);
  });

  it('refuses form and other non-JSON bodies with 415, even with a valid token in the header', async () => {
    const form = await api().post(`${V2}/userteam`).set('corelite-token', admin).type('form').send('user_id=mallory&team_code=CSRF-ADMINS');
    expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const text = await api()
      .post(`${V2}/userteam`)
      .set('corelite-token', admin)
      .set('content-type', 'text/plain')
      .send(JSON.stringify({ user_id: 'mallory', team_code: 'CSRF-ADMINS' }));
    expectProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const multipart = await request(platform.costasset.url)
      .post('/api/costasset/v1/jobs/anything/terminate')
      .set('corelite-token', admin)
      .set('content-type', 'multipart/form-data; boundary=x')
      .send('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n');
    expectProblem(multipart, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await teamsOf('mallory')).toEqual([]);
    // the header and the bearer still work
    await api().get('/core/authorization/v1/me').set('Authorization', `Bearer ${admin}`).expect(200);
  });

  it('refuses a token whose tid holds "/" (it would fall under another tenant\'s object-store prefix), in both services', async () => {
    const key = await loadSigningKey({
      devKeysDir: platform.env.DEV_KEYS_DIR ?? '.dev-keys',
      allowDevKey: true,
      privateKeyPem: platform.env.JWT_PRIVATE_KEY,
    });
    const now = Math.floor(Date.now() / 1000);
    const signed = (claims: Record<string, unknown>) =>
      new SignJWT({ groups: [], authType: 'internal', typ: 'access', ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .setSubject((claims.sub as string | undefined) ?? 'admin')
        .setIssuer(platform.env.JWT_ISSUER ?? 'corelite-authz')
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(key.privateKey);
    const slashed = await signed({ tid: 'default/../other', idp: 'idp-default' });
    const unsafeIdp = await signed({ tid: 'default', idp: 'idp/other' });
    const unsafeSub = await signed({ tid: 'default', idp: 'idp-default', sub: 'admin\n' });
    for (const token of [slashed, unsafeIdp, unsafeSub]) {
      expectProblem(await api().get('/core/authorization/v1/me').set('corelite-token', token), 401, 'TOKEN_CLAIMS_INVALID');
      expectProblem(
        await request(platform.costasset.url).get('/api/costasset/extensions/test').set('corelite-token', token),
        401,
        'TOKEN_CLAIMS_INVALID',
      );
    }
    // the same key and claims with a safe tenant id are accepted: only the claim's characters are refused
    await api()
      .get('/core/authorization/v1/me')
      .set('corelite-token', await signed({ tid: 'default', idp: 'idp-default' }))
      .expect(200);
  });

  it('the token command refuses to mint such claims', () => {
    const root = join(__dirname, '..', '..');
    const mint = (...args: string[]) =>
      spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'tools', 'token.ts'), ...args], {
        env: platform.env,
        encoding: 'utf8',
      });
    for (const [args, claim] of [
      [['--sub', 'admin', '--tenant', 'default/../other', '--idp', 'idp-default'], 'tid'],
      [['--sub', 'admin', '--tenant', 'default', '--idp', 'idp/other'], 'idp'],
      [['--sub', 'ad min', '--tenant', 'default', '--idp', 'idp-default', '--refresh'], 'sub'],
    ] as const) {
      const result = mint(...args);
      expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
      expect(result.stderr).toContain(`"${claim}"`);
    }
  });
});
