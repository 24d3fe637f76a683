import { loadSigningKey, TokenIssuer } from '@lib/auth';
import type { StartPlan } from './plan';

export const BOOTSTRAP_ADMIN = { sub: 'admin', tid: 'default', idp: 'idp-default', groups: [] as string[] };
/** The longest the sign-in link's session lasts, should `npm start` end without revoking it (a kill -9, a crash). */
export const SIGN_IN_HOURS = 12;

/** Signs tokens with the key authz uses. */
export async function localIssuer(plan: StartPlan): Promise<TokenIssuer> {
  const env = plan.serviceEnv;
  const key = await loadSigningKey({ privateKeyPem: env.JWT_PRIVATE_KEY, devKeysDir: env.DEV_KEYS_DIR ?? '.dev-keys', allowDevKey: true });
  return new TokenIssuer(key, env.JWT_ISSUER ?? 'corelite-authz');
}

export interface SignInLink {
  url: string;
  /** Ends the link's session: its refresh tokens and the access tokens of the session are refused from then on. */
  revoke(): Promise<void>;
}

/**
 * The console's sign-in link for the bootstrap System Admin: the tokens travel in the URL fragment,
 * which browsers never send to a server; the console keeps them in the tab's session storage and
 * refreshes the access token (1 hour) with the refresh token, which rotates at each refresh. The
 * access token carries the session of the refresh token (`sid`), so revoking the refresh token at
 * Ctrl-C ends both; a session not revoked ends after SIGN_IN_HOURS.
 */
export async function signInLink(plan: StartPlan): Promise<SignInLink> {
  const issuer = await localIssuer(plan);
  const refresh = await issuer.issueRefresh(BOOTSTRAP_ADMIN, SIGN_IN_HOURS * 3600);
  const access = await issuer.issueAccess({ ...BOOTSTRAP_ADMIN, authType: 'internal', sid: refresh.jti }, 3600);
  return {
    url: `${plan.gatewayUrl}/#token=${access.token}&refresh=${refresh.token}`,
    revoke: async () => {
      const response = await fetch(`${plan.serviceUrls.authz}/core/authorization/v1/token/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: refresh.token }),
        signal: AbortSignal.timeout(3000),
      });
      if (!response.ok) throw new Error(`authz answered ${response.status}`);
    },
  };
}
