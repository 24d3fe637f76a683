import { Injectable } from '@nestjs/common';
import { AccessTokenVerifier, parseTtl, TokenIssuer } from '@lib/auth';
import { AuthzEnvironment } from '../authz.environment';
import { PrincipalService } from '../identity/principal.service';
import { AccessTokenResponse } from './dto/refresh-token.dto';

@Injectable()
export class TokenService {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly issuer: TokenIssuer,
    private readonly principals: PrincipalService,
    private readonly env: AuthzEnvironment,
  ) {}

  /** Contract §2: the new access token carries the auth type of the caller's IdP as it is now. */
  async refresh(refreshToken: string): Promise<AccessTokenResponse> {
    const claims = await this.verifier.verify(refreshToken, 'refresh');
    const access = await this.principals.cachedAccess(claims);
    const issued = await this.issuer.issueAccess(
      { sub: claims.sub, tid: claims.tid, idp: claims.idp, groups: claims.groups, authType: access.authType, authTypeId: access.authTypeId },
      parseTtl(this.env.ACCESS_TOKEN_TTL),
    );
    return { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn };
  }
}
