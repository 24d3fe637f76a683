import { createLocalJWKSet, JWTPayload, jwtVerify, JWTVerifyGetKey, KeyLike } from 'jose';
import { ProblemException } from '@lib/http/problem/problem';
import { AUTH_TYPES, AuthType, TokenClaims } from './token-claims';
import { JwksKeySet } from './jwks-key-set';
import type { SigningKey } from './signing-key';
import { tokenProblem } from './token-errors';

type KeyResolver = KeyLike | JWTVerifyGetKey;

export const ACCEPTED_ALGORITHMS = ['ES256', 'RS256'];
const REQUIRED_CLAIMS = ['sub', 'tid', 'idp', 'exp', 'iat', 'iss'];

function claimProblem(claim: string): ProblemException {
  return new ProblemException(401, 'TOKEN_CLAIMS_INVALID', `The token's "${claim}" claim is missing or invalid`);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 256;
}

function toClaims(payload: JWTPayload): TokenClaims {
  for (const claim of ['sub', 'tid', 'idp']) {
    if (!isNonEmptyString(payload[claim])) throw claimProblem(claim);
  }
  const groups = payload.groups ?? [];
  if (!Array.isArray(groups) || groups.length > 1000 || !groups.every(isNonEmptyString)) throw claimProblem('groups');
  const authType = (payload.authType ?? 'internal') as AuthType;
  if (!AUTH_TYPES.includes(authType)) throw claimProblem('authType');
  const typ = payload.typ ?? 'access';
  if (typ !== 'access' && typ !== 'refresh') throw claimProblem('typ');
  return { ...(payload as unknown as TokenClaims), groups: groups as string[], authType, typ };
}

/**
 * Verifies a corelite-token: signature by a key of ours (local key in authz, the JWKS of authz
 * elsewhere), ES256/RS256 only (so `alg: none` and HMAC confusion are refused), issuer, time
 * window, and the claims the platform relies on.
 */
export class TokenVerifier {
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
    let claims: TokenClaims;
    try {
      const { payload } = await jwtVerify(token, this.keys as JWTVerifyGetKey, {
        issuer: this.issuer,
        algorithms: ACCEPTED_ALGORITHMS,
        requiredClaims: REQUIRED_CLAIMS,
        clockTolerance: this.clockToleranceSeconds,
      });
      claims = toClaims(payload);
    } catch (error) {
      throw tokenProblem(error);
    }
    if (claims.typ !== expected) {
      throw new ProblemException(401, 'TOKEN_TYPE_INVALID', `An ${expected} token is required`);
    }
    return claims;
  }
}
