import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { decodeJwt, SignJWT } from 'jose';
import request from 'supertest';
import { Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const root = join(__dirname, '..', '..');

function tokenCommand(args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'tools', 'token.ts'), ...args], {
    env,
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

describe('foundation: tokens, principal, errors, docs', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.close());

  it('accepts a token printed by the token command in both apps; costasset verifies through the JWKS of authz', async () => {
    const output = tokenCommand(['--sub', 'admin', '--tenant', 'default', '--idp', 'idp-default', '--groups', 'g1,g2'], platform.env);
    expect(output).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = output.trim();
    expect(decodeJwt(token)).toMatchObject({
      sub: 'admin',
      tid: 'default',
      idp: 'idp-default',
      groups: ['g1', 'g2'],
      iss: 'corelite-authz',
    });

    const me = await request(platform.authz.url).get('/core/authorization/v1/me').set('corelite-token', token).expect(200);
    expect(me.body).toMatchObject({
      user_id: 'admin',
      tenant_id: 'default',
      idp_id: 'idp-default',
      groups: ['g1', 'g2'],
      auth_type: 'internal',
      auth_type_id: null,
      is_system_admin: true,
      roles: ['System Admin'],
      teams: [{ team_code: 'INITIAL-SETUP-ADMIN', org_code: 'admin_org', roles: ['System Admin'], via: 'internal' }],
    });

    const check = await request(platform.costasset.url).get('/api/costasset/extensions/test').set('corelite-token', token).expect(200);
    expect(check.body).toEqual({ profileId: 'admin', tenantId: 'default' });
    await request(platform.costasset.url).get('/api/costasset/extensions/test').set('Authorization', `Bearer ${token}`).expect(200);

    const jwks = await request(platform.authz.url).get('/core/authorization/v1/.well-known/jwks.json').expect(200);
    expect(jwks.body.keys).toEqual([
      expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) }),
    ]);
    expect(jwks.body.keys[0]).not.toHaveProperty('d');
  });

  it('provisions a new user just in time, without privileges', async () => {
    const token = await platform.token({ sub: 'newcomer' });
    const me = await request(platform.authz.url).get('/core/authorization/v1/me').set('corelite-token', token).expect(200);
    expect(me.body).toMatchObject({ user_id: 'newcomer', is_system_admin: false, roles: [], teams: [] });
  });

  it('answers 401 problem+json for a missing, expired, foreign-signed or alg:none token, in both apps', async () => {
    for (const url of [`${platform.authz.url}/core/authorization/v1/me`, `${platform.costasset.url}/api/costasset/extensions/test`]) {
      expectProblem(await request(url).get(''), 401, 'TOKEN_MISSING');
      expectProblem(
        await request(url)
          .get('')
          .set('corelite-token', await platform.token({ sub: 'a' }, -60)),
        401,
        'TOKEN_EXPIRED',
      );

      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const now = Math.floor(Date.now() / 1000);
      const foreign = await new SignJWT({ tid: 'default', idp: 'i', groups: [] })
        .setProtectedHeader({ alg: 'ES256' })
        .setSubject('admin')
        .setIssuer('corelite-authz')
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(privateKey);
      expectProblem(await request(url).get('').set('corelite-token', foreign), 401, 'TOKEN_SIGNATURE_INVALID');

      const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const unsigned =
        `${b64({ alg: 'none' })}.` + `${b64({ sub: 'admin', tid: 'default', idp: 'i', iss: 'corelite-authz', iat: now, exp: now + 60 })}.`;
      const res = await request(url).get('').set('corelite-token', unsigned);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/problem\+json/);

      const refresh = await platform.refreshToken({ sub: 'admin' });
      expectProblem(await request(url).get('').set('corelite-token', refresh), 401, 'TOKEN_TYPE_INVALID');
    }
  });

  it('refreshes a token, carrying the auth type of the IdP as it is now', async () => {
    const refreshToken = await platform.refreshToken({ sub: 'admin', groups: ['g1'] });
    const res = await request(platform.authz.url)
      .post('/core/authorization/v1/token/refresh')
      .send({ refresh_token: refreshToken })
      .expect(200);
    expect(res.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    expect(decodeJwt(res.body.access_token)).toMatchObject({
      sub: 'admin',
      tid: 'default',
      groups: ['g1'],
      authType: 'internal',
      typ: 'access',
    });
    await request(platform.costasset.url).get('/api/costasset/extensions/test').set('corelite-token', res.body.access_token).expect(200);

    const access = await platform.token({ sub: 'admin' });
    expectProblem(
      await request(platform.authz.url).post('/core/authorization/v1/token/refresh').send({ refresh_token: access }),
      401,
      'TOKEN_TYPE_INVALID',
    );
  });

  it('refuses unknown fields, wrong types and malformed JSON with 400 problem+json listing the fields', async () => {
    const refreshToken = await platform.refreshToken({ sub: 'admin' });
    const unknown = await request(platform.authz.url)
      .post('/core/authorization/v1/token/refresh')
      .send({ refresh_token: refreshToken, role: 'root' });
    expectProblem(unknown, 400, 'VALIDATION_FAILED');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'role' })]);

    const wrongType = await request(platform.authz.url).post('/core/authorization/v1/token/refresh').send({ refresh_token: 42 });
    expectProblem(wrongType, 400, 'VALIDATION_FAILED');
    expect(wrongType.body.errors).toEqual([expect.objectContaining({ field: 'refresh_token' })]);

    const malformed = await request(platform.authz.url)
      .post('/core/authorization/v1/token/refresh')
      .set('content-type', 'application/json')
      .send('{"refresh_token":');
    expectProblem(malformed, 400, 'MALFORMED_BODY');

    const huge = await request(platform.authz.url)
      .post('/core/authorization/v1/token/refresh')
      .send({ refresh_token: 'x'.repeat(2 * 1024 * 1024) });
    expectProblem(huge, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers 404 problem+json for an unknown route and echoes a request id', async () => {
    const res = await request(platform.costasset.url)
      .get('/api/costasset/nothing-here')
      .set('x-request-id', 'req-123')
      .set('corelite-token', await platform.token({ sub: 'admin' }));
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.headers['x-request-id']).toBe('req-123');
    const generated = await request(platform.authz.directUrl).get('/health/live').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(['authz', 'costasset'] as const)('serves a valid OpenAPI document for %s with the token scheme declared', async (name) => {
    const url = platform[name].url;
    const res = await request(url).get(`/docs/${name}/openapi.json`).expect(200);
    const document = await SwaggerParser.validate(structuredClone(res.body));
    expect(document.info.title).toContain(name);
    expect(res.body.components.securitySchemes).toMatchObject({
      'corelite-token-header': { type: 'apiKey', in: 'header', name: 'corelite-token' },
      bearer: { type: 'http', scheme: 'bearer' },
    });
    // never a cookie: a browser would send it with cross-site requests
    expect(Object.values(res.body.components.securitySchemes)).not.toContainEqual(expect.objectContaining({ in: 'cookie' }));
    expect(res.body.servers).toEqual([expect.objectContaining({ url: '/' })]);
    await request(url).get(`/docs/${name}`).expect(200);
    // the same paths on the service itself, without the gateway
    await request(platform[name].directUrl).get(`/docs/${name}/openapi.json`).expect(200);
  });

  it('reports liveness and readiness of every dependency', async () => {
    await request(platform.authz.directUrl).get('/health/live').expect(200, { status: 'ok' });
    const authz = await request(platform.authz.directUrl).get('/health/ready').expect(200);
    expect(authz.body).toEqual({ status: 'ok', checks: { mongodb: 'up', nats: 'up', admission: 'up' } });
    const costasset = await request(platform.costasset.directUrl).get('/health/ready').expect(200);
    expect(costasset.body).toEqual({ status: 'ok', checks: { mongodb: 'up', nats: 'up', objectStore: 'up', admission: 'up' } });
  });
});
