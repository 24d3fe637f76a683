import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, SignJWT } from 'jose';
import { ProblemException } from '@lib/core';
import { loadSigningKey, SigningKey } from './signing-key';
import { TokenIssuer } from './token-issuer';
import { TokenVerifier } from './token-verifier';

const ISSUER = 'corelite-authz';
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function rejection(promise: Promise<unknown>): Promise<ProblemException> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    return error as ProblemException;
  }
  throw new Error('expected a rejection');
}

describe('TokenVerifier', () => {
  let key: SigningKey;
  let verifier: TokenVerifier;
  const claims = { sub: 'alice', tid: 't1', idp: 'idp-1', groups: ['g1'], authType: 'internal' as const };

  beforeAll(async () => {
    key = await loadSigningKey({ devKeysDir: mkdtempSync(join(tmpdir(), 'keys-')), allowDevKey: true });
    verifier = TokenVerifier.withKey(key, ISSUER);
  });

  const signed = (payload: Record<string, unknown>, signWith = key.privateKey, kid = key.kid) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid }).sign(signWith);
  const now = () => Math.floor(Date.now() / 1000);

  it('accepts a token it issued and returns its claims', async () => {
    const { token } = await new TokenIssuer(key, ISSUER).issueAccess(claims, 60);
    await expect(verifier.verify(token)).resolves.toMatchObject({ ...claims, typ: 'access', iss: ISSUER });
  });

  it.each([
    ['expired', { ...claims, iss: ISSUER, iat: now() - 120, exp: now() - 60 }, 'TOKEN_EXPIRED'],
    ['not yet valid', { ...claims, iss: ISSUER, iat: now(), nbf: now() + 600, exp: now() + 900 }, 'TOKEN_NOT_YET_VALID'],
    ['from another issuer', { ...claims, iss: 'someone-else', iat: now(), exp: now() + 60 }, 'TOKEN_ISSUER_INVALID'],
    ['without a tenant', { sub: 'alice', idp: 'i', iss: ISSUER, iat: now(), exp: now() + 60 }, 'TOKEN_CLAIMS_INVALID'],
    ['without an expiry', { ...claims, iss: ISSUER, iat: now() }, 'TOKEN_CLAIMS_INVALID'],
    ['with groups that are not strings', { ...claims, groups: [1], iss: ISSUER, iat: now(), exp: now() + 60 }, 'TOKEN_CLAIMS_INVALID'],
    ['with an unknown auth type', { ...claims, authType: 'root', iss: ISSUER, iat: now(), exp: now() + 60 }, 'TOKEN_CLAIMS_INVALID'],
  ])('refuses a token %s with 401', async (_label, payload, code) => {
    const problem = await rejection(verifier.verify(await signed(payload)));
    expect(problem.getStatus()).toBe(401);
    expect(problem.code).toBe(code);
  });

  it.each([
    ['tid', 'other/../default'],
    ['tid', 'tenant.with.dots'],
    ['tid', 'tenants/x'],
    ['tid', '-leading-dash'],
    ['tid', 't'.repeat(65)],
    ['sub', 'admin\u0000'],
    ['sub', 'alice bob'],
    ['sub', '../admin'],
    ['sub', 'a'.repeat(257)],
    ['idp', 'idp/one'],
    ['idp', 'idp:one'],
    ['idp', ''],
  ])('refuses a "%s" claim outside its safe character set (%j) with 401 TOKEN_CLAIMS_INVALID', async (claim, value) => {
    const problem = await rejection(verifier.verify(await signed({ ...claims, [claim]: value, iss: ISSUER, iat: now(), exp: now() + 60 })));
    expect({ status: problem.getStatus(), code: problem.code }).toEqual({ status: 401, code: 'TOKEN_CLAIMS_INVALID' });
    expect(problem.message).toContain(`"${claim}"`);
  });

  it('accepts e-mail-like and base64url subjects and IdP ids', async () => {
    for (const [sub, idp] of [
      ['first.last+tag@example.com', 'login.example.com'],
      ['_Ab-9xYz', 'idp_default-2'],
    ]) {
      await expect(verifier.verify(await signed({ ...claims, sub, idp, iss: ISSUER, iat: now(), exp: now() + 60 }))).resolves.toMatchObject(
        { sub, idp },
      );
    }
  });

  it('never signs an identity claim outside its safe character set', async () => {
    const issuer = new TokenIssuer(key, ISSUER);
    await expect(issuer.issueAccess({ ...claims, tid: 'a/b' }, 60)).rejects.toThrow(/"tid"/);
    await expect(issuer.issueRefresh({ sub: 'a b', tid: 't', idp: 'i', groups: [] }, 60)).rejects.toThrow(/"sub"/);
    await expect(issuer.issueAccess({ ...claims, idp: 'idp\n' }, 60)).rejects.toThrow(/"idp"/);
  });

  it('checks the signature of a token once, and refuses it again once it has expired', async () => {
    let lookups = 0;
    const keys = createLocalJWKSet({ keys: [key.publicJwk] });
    const counting = new TokenVerifier(
      (header, token) => {
        lookups += 1;
        return keys(header, token);
      },
      ISSUER,
      0,
    );
    const token = await signed({ ...claims, iss: ISSUER, iat: now(), exp: now() + 2 });
    await expect(counting.verify(token)).resolves.toMatchObject({ sub: 'alice' });
    await expect(counting.verify(token)).resolves.toMatchObject({ sub: 'alice' });
    expect(lookups).toBe(1);
    // the remembered verification does not outlive the token
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await rejection(counting.verify(token))).code).toBe('TOKEN_EXPIRED');
    expect(lookups).toBe(2);
    // nor does it change the type a route asks for
    expect((await rejection(counting.verify(token, 'refresh'))).code).toBe('TOKEN_EXPIRED');
  });

  it('never remembers a failure: a token refused once is checked again', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await signed({ ...claims, iss: ISSUER, iat: now(), exp: now() + 60 }, privateKey);
    expect((await rejection(verifier.verify(forged))).code).toBe('TOKEN_SIGNATURE_INVALID');
    expect((await rejection(verifier.verify(forged))).code).toBe('TOKEN_SIGNATURE_INVALID');
    const { token } = await new TokenIssuer(key, ISSUER).issueAccess(claims, 60);
    await verifier.verify(token);
    expect((await rejection(verifier.verify(token, 'refresh'))).code).toBe('TOKEN_TYPE_INVALID');
  });

  it('refuses a token signed by another key under our kid as a bad signature', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const token = await signed({ ...claims, iss: ISSUER, iat: now(), exp: now() + 60 }, privateKey);
    expect((await rejection(verifier.verify(token))).code).toBe('TOKEN_SIGNATURE_INVALID');
  });

  it('refuses a token naming a key it does not hold as TOKEN_KEY_UNKNOWN', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const problem = await rejection(
      verifier.verify(await signed({ ...claims, iss: ISSUER, iat: now(), exp: now() + 60 }, privateKey, 'another-key')),
    );
    expect({ status: problem.getStatus(), code: problem.code }).toEqual({ status: 401, code: 'TOKEN_KEY_UNKNOWN' });
  });

  it('lets an error that is no token problem through as it is', async () => {
    const broken = new TokenVerifier(() => Promise.reject(new TypeError('a bug')), ISSUER);
    const token = await signed({ ...claims, iss: ISSUER, iat: now(), exp: now() + 60 });
    await expect(broken.verify(token)).rejects.toThrow(TypeError);
  });

  it('refuses a tampered payload', async () => {
    const token = await signed({ ...claims, iss: ISSUER, iat: now(), exp: now() + 60 });
    const [header, , signature] = token.split('.');
    const forged = [header, base64url({ ...claims, tid: 'other', iss: ISSUER, iat: now(), exp: now() + 60 }), signature].join('.');
    expect((await rejection(verifier.verify(forged))).code).toBe('TOKEN_SIGNATURE_INVALID');
  });

  it('refuses alg none', async () => {
    const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...claims, iss: ISSUER, iat: now(), exp: now() + 60 })}.`;
    const problem = await rejection(verifier.verify(token));
    expect(problem.getStatus()).toBe(401);
    expect(['TOKEN_ALGORITHM_REFUSED', 'TOKEN_MALFORMED']).toContain(problem.code);
  });

  it('refuses an HMAC token made with the public key as secret', async () => {
    const secret = Buffer.from(key.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const token = await new SignJWT({ ...claims, iss: ISSUER, iat: now(), exp: now() + 60 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(secret);
    expect((await rejection(verifier.verify(token))).getStatus()).toBe(401);
  });

  it('refuses garbage', async () => {
    expect((await rejection(verifier.verify('not.a.jwt'))).code).toBe('TOKEN_MALFORMED');
  });

  it('refuses a refresh token where an access token is needed, and the reverse', async () => {
    const issuer = new TokenIssuer(key, ISSUER);
    const refresh = await issuer.issueRefresh({ sub: 'a', tid: 't', idp: 'i', groups: [] }, 60);
    expect((await rejection(verifier.verify(refresh.token, 'access'))).code).toBe('TOKEN_TYPE_INVALID');
    const access = await issuer.issueAccess(claims, 60);
    expect((await rejection(verifier.verify(access.token, 'refresh'))).code).toBe('TOKEN_TYPE_INVALID');
  });
});

describe('loadSigningKey', () => {
  it('creates one dev key and reuses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    const [first, second] = await Promise.all([
      loadSigningKey({ devKeysDir: dir, allowDevKey: true }),
      loadSigningKey({ devKeysDir: dir, allowDevKey: true }),
    ]);
    expect(first.kid).toBe(second.kid);
    expect(first.alg).toBe('ES256');
    expect(first.publicJwk).not.toHaveProperty('d');
  });

  it('refuses to invent a key in production', async () => {
    await expect(loadSigningKey({ devKeysDir: '/nonexistent', allowDevKey: false })).rejects.toThrow(/JWT_PRIVATE_KEY/);
  });

  it('accepts an RSA key from the environment with escaped newlines', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = (privateKey.export({ type: 'pkcs8', format: 'pem' }) as string).replace(/\n/g, '\\n');
    const key = await loadSigningKey({ privateKeyPem: pem, devKeysDir: '/nonexistent', allowDevKey: false });
    expect(key.alg).toBe('RS256');
  });
});
