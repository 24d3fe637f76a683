import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
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

  private async sign(payload: Record<string, unknown>, subject: string, ttlSeconds: number): Promise<IssuedToken> {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: this.key.alg, kid: this.key.kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.issuer)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(randomUUID())
      .sign(this.key.privateKey);
    return { token, expiresIn: ttlSeconds };
  }
}
