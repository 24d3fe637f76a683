import { createLocalJWKSet, JWTPayload, jwtVerify, JWTVerifyGetKey, KeyLike } from 'jose';
import { ProblemException } from '@lib/core';
import { CLAIM_FORMATS, unsafeIdentityClaim } from './claim-format';
import { AUTH_TYPES, AuthType, TokenClaims } from './token-claims';
import { JwksKeySet } from './jwks-key-set';
import type { SigningKey } from './signing-key';
import { tokenProblem } from './token-errors';

type KeyResolver = KeyLike | JWTVerifyGetKey;

export const ACCEPTED_ALGORITHMS = ['ES256', 'RS256'];
const REQUIRED_CLAIMS = ['sub', 'tid', 'idp', 'exp', 'iat', 'iss'];

function claimProblem(claim: string, rule?: string): ProblemException {
  return new ProblemException(401, 'TOKEN_CLAIMS_INVALID', `The token's "${claim}" claim is missing or invalid${rule ? ` (${rule})` : ''}`);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 256;
}

function toClaims(payload: JWTPayload): TokenClaims {
  const unsafe = unsafeIdentityClaim({ tid: payload.tid, sub: payload.sub, idp: payload.idp });
  if (unsafe) throw claimProblem(unsafe, CLAIM_FORMATS[unsafe].rule);
  const groups = payload.groups ?? [];
  if (!Array.isArray(groups) || groups.length > 1000 || !groups.every(isNonEmptyString)) throw claimProblem('groups');
  const authType = (payload.authType ?? 'internal') as AuthType;
  if (!AUTH_TYPES.includes(authType)) throw claimProblem('authType');
  const typ = payload.typ ?? 'access';
  if (typ !== 'access' && typ !== 'refresh') throw claimProblem('typ');
  return { ...(payload as unknown as TokenClaims), groups: groups as string[], authType, typ };
}

/** Most tokens whose verification is remembered; past it the oldest is forgotten first. */
const VERIFIED_TOKENS_MAX = 10_000;
/** Longest a verification is remembered: a key withdrawn from the key set stops being honoured within this. */
export const VERIFIED_TOKEN_TTL_MS = 60_000;

/**
 * Tokens verified lately, by the token itself (header, payload and signature: only the exact
 * token that passed can hit), until they expire or VERIFIED_TOKEN_TTL_MS passes. Checking an
 * ES256 or RS256 signature costs ~0.3 ms of CPU, on every request of a client that sends the same
 * token for an hour; a look-up costs microseconds. Failures are never remembered.
 */
class VerifiedTokens {
  private readonly entries = new Map<string, { claims: TokenClaims; until: number }>();

  get(token: string, now: number): TokenClaims | undefined {
    const entry = this.entries.get(token);
    if (entry && now <= entry.until) return entry.claims;
    if (entry) this.entries.delete(token);
    return undefined;
  }

  set(token: string, claims: TokenClaims, until: number): void {
    if (this.entries.size >= VERIFIED_TOKENS_MAX) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, { claims, until });
  }
}

/**
 * Verifies a corelite-token: signature by a key of ours (local key in authz, the JWKS of authz
 * elsewhere), ES256/RS256 only (so `alg: none` and HMAC confusion are refused), issuer, time
 * window, and the claims the platform relies on.
 */
export class TokenVerifier {
  private readonly verified = new VerifiedTokens();

  constructor(
    private readonly keys: KeyResolver,
    private readonly issuer: string,
    private readonly clockToleranceSeconds = 5,
  ) {}

  /** authz: its own key, published under its `kid` (a token naming another kid is `TOKEN_KEY_UNKNOWN`). */
  static withKey(key: SigningKey, issuer: string): TokenVerifier {
    return new TokenVerifier(createLocalJWKSet({ keys: [key.publicJwk] }), issuer);
  }

  /** Every other service: the key set authz publishes, fetched again when a token names an unknown key. */
  static withJwks(jwksUrl: string, issuer: string): TokenVerifier {
    return new TokenVerifier(new JwksKeySet(new URL(jwksUrl)).getKey, issuer);
  }

  async verify(token: string, expected: 'access' | 'refresh' = 'access'): Promise<TokenClaims> {
    const now = Date.now();
    let claims = this.verified.get(token, now);
    if (!claims) {
      claims = await this.verifySignature(token);
      // valid up to `exp` within the clock tolerance, as jwtVerify judges it
      this.verified.set(token, claims, Math.min(((claims.exp ?? 0) + this.clockToleranceSeconds) * 1000, now + VERIFIED_TOKEN_TTL_MS));
    }
    if (claims.typ !== expected) {
      throw new ProblemException(401, 'TOKEN_TYPE_INVALID', `An ${expected} token is required`);
    }
    return claims;
  }

  private async verifySignature(token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.keys as JWTVerifyGetKey, {
        issuer: this.issuer,
        algorithms: ACCEPTED_ALGORITHMS,
        requiredClaims: REQUIRED_CLAIMS,
        clockTolerance: this.clockToleranceSeconds,
      });
      return toClaims(payload);
    } catch (error) {
      throw tokenProblem(error);
    }
  }
}
