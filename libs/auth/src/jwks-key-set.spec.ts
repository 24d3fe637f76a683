import { generateKeyPairSync } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProblemException } from '@lib/core';
import { loadSigningKey, SigningKey } from './signing-key';
import { TokenIssuer } from './token-issuer';
import { TokenVerifier } from './token-verifier';
import { JwksKeySet } from './jwks-key-set';

const ISSUER = 'corelite-authz';
const claims = { sub: 'alice', tid: 't1', idp: 'idp-1', groups: [], authType: 'internal' as const };

const newKey = async (): Promise<SigningKey> => loadSigningKey({ devKeysDir: mkdtempSync(join(tmpdir(), 'keys-')), allowDevKey: true });

async function problemOf(promise: Promise<unknown>): Promise<ProblemException> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemException) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** A JWKS endpoint over real HTTP whose published keys the test changes, counting the fetches. */
describe('JwksKeySet (over HTTP)', () => {
  let server: Server;
  let url: URL;
  let published: SigningKey[] = [];
  let status = 200;
  let fetches = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      fetches += 1;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map((key) => key.publicJwk) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    status = 200;
    fetches = 0;
  });

  const verifierFor = (options: ConstructorParameters<typeof JwksKeySet>[1] = {}) =>
    new TokenVerifier(new JwksKeySet(url, options).getKey, ISSUER);
  const tokenOf = async (key: SigningKey) => (await new TokenIssuer(key, ISSUER).issueAccess(claims, 60)).token;

  it('fetches the set again when a token names a new key (rotation, restarted authz)', async () => {
    const first = await newKey();
    published = [first];
    const verifier = verifierFor({ unknownKeyRefetchMs: 0 });
    await expect(verifier.verify(await tokenOf(first))).resolves.toMatchObject({ sub: 'alice' });
    const second = await newKey();
    published = [second];
    await expect(verifier.verify(await tokenOf(second))).resolves.toMatchObject({ sub: 'alice' });
    expect(fetches).toBe(2);
  });

  it('answers TOKEN_KEY_UNKNOWN for a key the set does not hold, and fetches at most once per interval', async () => {
    published = [await newKey()];
    const verifier = verifierFor({ unknownKeyRefetchMs: 60_000 });
    const stranger = await tokenOf(await newKey());
    for (let i = 0; i < 5; i++) {
      const problem = await problemOf(verifier.verify(stranger));
      expect({ status: problem.getStatus(), code: problem.code }).toEqual({ status: 401, code: 'TOKEN_KEY_UNKNOWN' });
    }
    expect(fetches).toBe(1);
  });

  it('answers 503 KEYS_UNAVAILABLE when the set cannot be fetched (error status, nothing listening)', async () => {
    const key = await newKey();
    status = 500;
    expect((await problemOf(verifierFor().verify(await tokenOf(key)))).code).toBe('KEYS_UNAVAILABLE');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = new URL(`http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks.json`);
    await new Promise((resolve) => closed.close(resolve));
    const problem = await problemOf(new TokenVerifier(new JwksKeySet(deadUrl).getKey, ISSUER).verify(await tokenOf(key)));
    expect({ status: problem.getStatus(), code: problem.code }).toEqual({ status: 503, code: 'KEYS_UNAVAILABLE' });
  });

  it('shares one fetch between concurrent callers and keeps serving when a refresh fails', async () => {
    const key = await newKey();
    published = [key];
    const verifier = verifierFor({ maxAgeMs: 0, failureCooldownMs: 0 });
    const token = await tokenOf(key);
    await Promise.all(Array.from({ length: 10 }, () => verifier.verify(token)));
    expect(fetches).toBeLessThan(10);
    status = 500;
    await expect(verifier.verify(token)).resolves.toMatchObject({ sub: 'alice' });
  });

  it('refuses a token signed with a foreign key under a published kid as a bad signature', async () => {
    const key = await newKey();
    published = [key];
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await new TokenIssuer({ ...key, privateKey }, ISSUER).issueAccess(claims, 60);
    expect((await problemOf(verifierFor().verify(forged.token))).code).toBe('TOKEN_SIGNATURE_INVALID');
  });
});
