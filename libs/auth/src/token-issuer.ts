import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { CLAIM_FORMATS, unsafeIdentityClaim } from './claim-format';
import type { SigningKey } from './signing-key';
import type { AccessClaimsInput, RefreshClaimsInput } from './token-claims';

/** Durations such as `90s`, `15m`, `1h`, `7d`. */
export function parseTtl(ttl: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(ttl.trim());
  if (!match) throw new Error(`Invalid duration "${ttl}" (use e.g. 90s, 15m, 1h, 7d)`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
  /** The token's `jti`. */
  jti: string;
}

/** Signs corelite-tokens with the service's private key. Pure: no Nest, usable from the token command. */
export class TokenIssuer {
  constructor(
    private readonly key: SigningKey,
    private readonly issuer: string,
  ) {}

  issueAccess(claims: AccessClaimsInput, ttlSeconds: number): Promise<IssuedToken> {
    const { sub, ...rest } = claims;
    return this.sign({ ...rest, groups: claims.groups ?? [], typ: 'access' }, sub, ttlSeconds);
  }

  issueRefresh(claims: RefreshClaimsInput, ttlSeconds: number): Promise<IssuedToken> {
    const { sub, ...rest } = claims;
    return this.sign({ ...rest, groups: claims.groups ?? [], typ: 'refresh' }, sub, ttlSeconds);
  }

  /** Never signs what every verifier would refuse (the token command passes its arguments here). */
  private async sign(payload: Record<string, unknown>, subject: string, ttlSeconds: number): Promise<IssuedToken> {
    const unsafe = unsafeIdentityClaim({ tid: payload.tid, idp: payload.idp, sub: subject });
    if (unsafe) throw new Error(`Invalid "${unsafe}" claim: ${CLAIM_FORMATS[unsafe].rule}`);
    const now = Math.floor(Date.now() / 1000);
    const jti = randomUUID();
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: this.key.alg, kid: this.key.kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.issuer)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(jti)
      .sign(this.key.privateKey);
    return { token, expiresIn: ttlSeconds, jti };
  }
}
