import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { loadSigningKey, TokenIssuer } from '@lib/auth';
import { createAuthzApp } from '../../apps/authz/src/create-authz-app';
import { createCostassetApp } from '../../apps/costasset/src/create-costasset-app';
import { expectProblem } from '../support/problems';
import { Platform, startPlatform } from '../support/platform';

const ME = '/core/authorization/v1/me';
const CURRENCY = '/api/costasset/v1/currency/defaultCurrency';
const claims = { sub: 'admin', tid: 'default', idp: 'idp-default', groups: [], authType: 'internal' as const };

const tokenFromNewKey = async (issuer: string) => {
  const key = await loadSigningKey({ devKeysDir: mkdtempSync(join(tmpdir(), 'other-key-')), allowDevKey: true });
  return { key, token: (await new TokenIssuer(key, issuer).issueAccess(claims, 600)).token };
};

/** Signing keys as costasset meets them: unknown keys, an unreachable key set, authz restarted with a new dev key. */
describe('token signing keys', () => {
  let platform: Platform;
  let authz: INestApplication;
  const issuer = () => platform.env.JWT_ISSUER ?? 'corelite-authz';

  beforeAll(async () => {
    platform = await startPlatform();
    authz = platform.authz.app;
  });
  afterAll(async () => {
    await authz.get<Connection>(getConnectionToken()).dropDatabase();
    await platform.costasset.app.close();
    await authz.close();
  });

  it('answers 401 TOKEN_KEY_UNKNOWN, not TOKEN_MALFORMED, for a token signed by a key the platform does not publish', async () => {
    const { token } = await tokenFromNewKey(issuer());
    expectProblem(await request(platform.authz.url).get(ME).set('corelite-token', token), 401, 'TOKEN_KEY_UNKNOWN');
    expectProblem(await request(platform.costasset.url).get(CURRENCY).set('corelite-token', token), 401, 'TOKEN_KEY_UNKNOWN');
  });

  it('answers 503 KEYS_UNAVAILABLE while the key set cannot be fetched', async () => {
    const { app } = await createCostassetApp({
      ...platform.env,
      AUTHZ_JWKS_URL: 'http://127.0.0.1:1/core/authorization/v1/.well-known/jwks.json',
    });
    await app.listen(0, '127.0.0.1');
    try {
      const res = await request(app.getHttpServer())
        .get(CURRENCY)
        .set('corelite-token', await platform.token({ sub: 'admin' }));
      expectProblem(res, 503, 'KEYS_UNAVAILABLE');
    } finally {
      await app.close();
    }
  });

  it('accepts tokens of an authz restarted with a new dev key, fetching the key set again', async () => {
    await request(platform.costasset.url)
      .get(CURRENCY)
      .set('corelite-token', await platform.token({ sub: 'admin' }))
      .expect(200);
    const { port } = authz.getHttpServer().address() as { port: number };
    await authz.close();
    const restarted = await createAuthzApp({ ...platform.env, DEV_KEYS_DIR: mkdtempSync(join(tmpdir(), 'restarted-keys-')) });
    authz = restarted.app;
    await authz.listen(port, '127.0.0.1');
    const newKey = await loadSigningKey({ devKeysDir: restarted.env.DEV_KEYS_DIR, allowDevKey: true });
    const token = (await new TokenIssuer(newKey, issuer()).issueAccess(claims, 600)).token;
    // the key set is fetched again at most every 5 s when a token names an unknown key
    await new Promise((resolve) => setTimeout(resolve, 5200));
    await request(platform.costasset.url).get(CURRENCY).set('corelite-token', token).expect(200);
  });
});
