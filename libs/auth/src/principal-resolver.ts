import type { Principal } from './principal';
import type { TokenClaims } from './token-claims';

/** Turns verified claims into the caller's teams and roles; each service provides its own. */
export abstract class PrincipalResolver {
  abstract resolve(claims: TokenClaims): Promise<Principal>;
}

/** How this service verifies tokens: its own key (authz) or the JWKS of authz (everyone else). */
export abstract class AccessTokenVerifier {
  abstract verify(token: string, expected?: 'access' | 'refresh'): Promise<TokenClaims>;
}
