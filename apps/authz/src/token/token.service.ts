import { Injectable } from '@nestjs/common';
import { AccessTokenVerifier, parseTtl, TokenClaims, TokenIssuer } from '@lib/auth';
import { ProblemException, Problems } from '@lib/core';
import { AuthzEnvironment } from '../authz.environment';
import { PrincipalService } from '../identity/principal.service';
import { TokenFamilyRepository } from '../sessions/token-family.repository';
import { AccessTokenResponse } from './dto/refresh-token.dto';
import { RefreshGroups } from './refresh-groups';
import { familyOf, SessionRevocation } from './session-revocation.service';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Refresh with rotation and reuse detection: each refresh token is spent by its use and answered
 * with the next one of its family (session); spending a spent one revokes the family, so a stolen
 * token stops working for the thief and the owner alike. Revocation ends a session at once.
 */
@Injectable()
export class TokenService {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly issuer: TokenIssuer,
    private readonly principals: PrincipalService,
    private readonly families: TokenFamilyRepository,
    private readonly groups: RefreshGroups,
    private readonly revocation: SessionRevocation,
    private readonly env: AuthzEnvironment,
  ) {}

  /** The new access token carries the auth type of the caller's IdP as it is now (docs/decisions.md#tokens). */
  async refresh(refreshToken: string): Promise<AccessTokenResponse> {
    const claims = await this.verifier.verify(refreshToken, 'refresh');
    const familyId = familyOf(claims);
    if (!familyId || !claims.jti) throw Problems.unauthorized('TOKEN_CLAIMS_INVALID', 'The token\'s "jti" claim is missing or invalid');
    // refuses a disabled user and a revoked session before anything is spent
    const access = await this.principals.cachedAccess(claims);
    const groups = await this.groups.of(claims, access.authType);

    const identity = { sub: claims.sub, tid: claims.tid, idp: claims.idp, groups, sid: familyId };
    const sessionLeft = (claims.exp ?? 0) - nowSeconds();
    if (sessionLeft <= 0) throw Problems.unauthorized('TOKEN_EXPIRED', 'The token has expired');
    const next = await this.issuer.issueRefresh(identity, sessionLeft);
    const issued = await this.issuer.issueAccess(
      { ...identity, authType: access.authType, authTypeId: access.authTypeId },
      parseTtl(this.env.ACCESS_TOKEN_TTL),
    );

    if (!(await this.spend(claims, familyId, next.jti, issued.expiresIn))) {
      await this.revocation.revokeFamilyOf(claims, 'reuse');
      throw Problems.unauthorized('TOKEN_REVOKED', 'This refresh token was used before: its session is revoked, sign in again');
    }
    return { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn, refresh_token: next.token };
  }

  /** RFC 7009: a token that is not a valid refresh token of ours is no error, there is just nothing to revoke. */
  async revoke(token: string): Promise<void> {
    let claims: TokenClaims;
    try {
      claims = await this.verifier.verify(token, 'refresh');
    } catch (error) {
      if (error instanceof ProblemException && error.getStatus() === 401) return;
      throw error;
    }
    await this.revocation.revokeFamilyOf(claims, 'sign-out');
  }

  /** Spends the presented token atomically; false when it was spent before (or its session revoked). */
  private spend(claims: TokenClaims, familyId: string, nextJti: string, accessTtlSeconds: number): Promise<boolean> {
    // the record outlives every token of the family, so that a revoked family's access tokens stay refused
    const expiresAt = new Date(Math.max(claims.exp ?? 0, nowSeconds() + accessTtlSeconds) * 1000);
    if (claims.sid) return this.families.rotate(claims.tid, familyId, claims.jti as string, nextJti, expiresAt);
    return this.families.start(claims.tid, familyId, { userId: claims.sub, idpId: claims.idp, expiresAt }, nextJti);
  }
}
