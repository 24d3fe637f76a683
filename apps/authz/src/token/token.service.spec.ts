import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { loadSigningKey, TokenIssuer, TokenVerifier } from '@lib/auth';
import { ProblemException } from '@lib/core';
import type { AuthzEnvironment } from '../authz.environment';
import type { PrincipalService } from '../identity/principal.service';
import type { TokenFamilyRepository } from '../sessions/token-family.repository';
import type { RefreshGroups } from './refresh-groups';
import type { SessionRevocation } from './session-revocation.service';
import { TokenService } from './token.service';

const ISSUER = 'corelite-authz';

/** Families as the repository keeps them, in memory: the current token of each, and revoked ones. */
class Families {
  readonly current = new Map<string, string | null>();
  readonly revoked = new Set<string>();

  start(_tenantId: string, familyId: string, _owner: unknown, nextJti: string): Promise<boolean> {
    if (this.current.has(familyId)) return Promise.resolve(false);
    this.current.set(familyId, nextJti);
    return Promise.resolve(true);
  }

  rotate(_tenantId: string, familyId: string, jti: string, nextJti: string): Promise<boolean> {
    if (this.revoked.has(familyId) || this.current.get(familyId) !== jti) return Promise.resolve(false);
    this.current.set(familyId, nextJti);
    return Promise.resolve(true);
  }
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

describe('TokenService: rotation and reuse', () => {
  let issuer: TokenIssuer;
  let service: TokenService;
  let families: Families;
  const claims = { sub: 'alice', tid: 't1', idp: 'idp-1', groups: ['g1'] };

  beforeEach(async () => {
    const key = await loadSigningKey({ devKeysDir: mkdtempSync(join(tmpdir(), 'keys-')), allowDevKey: true });
    issuer = new TokenIssuer(key, ISSUER);
    families = new Families();
    const principals = { cachedAccess: () => Promise.resolve({ authType: 'internal', teams: [], roles: [], isSystemAdmin: false }) };
    const groups = { of: (c: { groups: string[] }) => Promise.resolve(c.groups) };
    const revocation = {
      revokeFamilyOf: (c: { sid?: string; jti?: string }) => {
        families.revoked.add((c.sid ?? c.jti) as string);
        return Promise.resolve();
      },
    };
    service = new TokenService(
      TokenVerifier.withKey(key, ISSUER),
      issuer,
      principals as unknown as PrincipalService,
      families as unknown as TokenFamilyRepository,
      groups as unknown as RefreshGroups,
      revocation as unknown as SessionRevocation,
      { ACCESS_TOKEN_TTL: '1h' } as AuthzEnvironment,
    );
  });

  it('answers the next refresh token of the session, and its access token carries the session', async () => {
    const signIn = await issuer.issueRefresh(claims, 600);
    const first = await service.refresh(signIn.token);
    const second = await service.refresh(first.refresh_token);
    expect(decodeJwt(first.refresh_token)).toMatchObject({ typ: 'refresh', sid: signIn.jti, sub: 'alice', groups: ['g1'] });
    expect(decodeJwt(second.access_token)).toMatchObject({ typ: 'access', sid: signIn.jti });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(Math.abs((decodeJwt(second.refresh_token).exp as number) - (decodeJwt(signIn.token).exp as number))).toBeLessThanOrEqual(1);
  });

  it('refuses a spent refresh token and revokes its session', async () => {
    const signIn = await issuer.issueRefresh(claims, 600);
    const first = await service.refresh(signIn.token);
    const reuse = await problemOf(service.refresh(signIn.token));
    expect([reuse.getStatus(), reuse.code]).toEqual([401, 'TOKEN_REVOKED']);
    expect(families.revoked.has(signIn.jti)).toBe(true);
    expect((await problemOf(service.refresh(first.refresh_token))).code).toBe('TOKEN_REVOKED');
  });

  it('lets one of two concurrent refreshes of one token through', async () => {
    const signIn = await issuer.issueRefresh(claims, 600);
    const results = await Promise.allSettled([service.refresh(signIn.token), service.refresh(signIn.token)]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('revokes nothing and answers nothing for a token that is not a refresh token of ours', async () => {
    await expect(service.revoke('not-a-token')).resolves.toBeUndefined();
    await expect(service.revoke((await issuer.issueAccess({ ...claims, authType: 'internal' }, 60)).token)).resolves.toBeUndefined();
    expect(families.revoked.size).toBe(0);
  });
});
