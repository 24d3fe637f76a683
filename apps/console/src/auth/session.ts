import createClient from 'openapi-fetch';
import type { paths as AuthzPaths } from '../api/generated/authz';

/**
 * The signed-in session: the access token (and a refresh token when one was given) in
 * sessionStorage, so it lives as long as the tab and never reaches a server log: the sign-in link
 * carries it in the URL fragment, which browsers never send, and the console removes it from the
 * address bar at once.
 */
const ACCESS = 'corelite.access';
const REFRESH = 'corelite.refresh';
const NOTICE = 'corelite.notice';
/** Refresh when the access token has less than this left. */
const REFRESH_MARGIN_MS = 60_000;

export interface Claims {
  sub: string;
  tid: string;
  typ?: 'access' | 'refresh';
  exp: number;
}

/** The claims of a JWT, read without verifying it (the API verifies every request). */
export function claimsOf(token: string): Claims | undefined {
  const part = token.split('.')[1];
  if (!part || token.split('.').length !== 3) return undefined;
  try {
    const json = atob(
      part
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(part.length / 4) * 4, '='),
    );
    const claims = JSON.parse(json) as Claims;
    return typeof claims.exp === 'number' && typeof claims.sub === 'string' ? claims : undefined;
  } catch {
    return undefined;
  }
}

const listeners = new Set<() => void>();
const changed = () => listeners.forEach((listener) => listener());

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function accessToken(): string | undefined {
  return sessionStorage.getItem(ACCESS) ?? undefined;
}

export function isSignedIn(): boolean {
  return accessToken() !== undefined;
}

/** A message for the sign-in page (why the user was signed out), read once. */
export function takeNotice(): string | undefined {
  const notice = sessionStorage.getItem(NOTICE) ?? undefined;
  sessionStorage.removeItem(NOTICE);
  return notice;
}

/** Its own client, without the session middleware (which calls this). */
const tokenClient = createClient<AuthzPaths>();

/**
 * Forgets the tokens and ends their session on the server (RFC 7009 revocation of the refresh
 * token), so a copy of either token left anywhere stops working too. `keepalive` lets the request
 * finish should the tab close right after.
 */
export function signOut(notice?: string): void {
  const refreshToken = sessionStorage.getItem(REFRESH);
  if (refreshToken) {
    void tokenClient.POST('/core/authorization/v1/token/revoke', { body: { token: refreshToken }, keepalive: true }).catch(() => undefined);
  }
  sessionStorage.removeItem(ACCESS);
  sessionStorage.removeItem(REFRESH);
  if (notice) sessionStorage.setItem(NOTICE, notice);
  else sessionStorage.removeItem(NOTICE);
  changed();
}

let refreshing: Promise<string | undefined> | undefined;

async function refresh(): Promise<string | undefined> {
  const refreshToken = sessionStorage.getItem(REFRESH);
  if (!refreshToken) return undefined;
  const { data } = await tokenClient
    .POST('/core/authorization/v1/token/refresh', { body: { refresh_token: refreshToken } })
    .catch(() => ({ data: undefined }));
  if (!data) return undefined;
  // the refresh token sent is spent: the next refresh needs the one answered
  sessionStorage.setItem(REFRESH, data.refresh_token);
  sessionStorage.setItem(ACCESS, data.access_token);
  changed();
  return data.access_token;
}

/**
 * The access token to send: refreshed first when it expires within a minute and a refresh token
 * is at hand. An expired session signs out with a message for the sign-in page.
 */
export async function validAccessToken(): Promise<string | undefined> {
  const token = accessToken();
  if (!token) return undefined;
  const claims = claimsOf(token);
  if (claims && claims.exp * 1000 - Date.now() > REFRESH_MARGIN_MS) return token;
  refreshing ??= refresh().finally(() => (refreshing = undefined));
  const renewed = await refreshing;
  if (renewed) return renewed;
  if (claims && claims.exp * 1000 > Date.now()) return token;
  signOut('Your session has expired. Sign in again.');
  return undefined;
}

/**
 * Signs in with a pasted token: an access token is used as it is; a refresh token is exchanged
 * for an access token. Throws with a message the sign-in page shows.
 */
export async function signIn(token: string, refreshToken?: string): Promise<void> {
  const claims = claimsOf(token.trim());
  if (!claims) throw new Error('This is not a corelite token (a JWT of three dot-separated parts).');
  if (claims.typ === 'refresh') {
    sessionStorage.setItem(REFRESH, token.trim());
    sessionStorage.removeItem(ACCESS);
    if (!(await refresh())) {
      sessionStorage.removeItem(REFRESH);
      throw new Error('This refresh token was refused: it may have expired. Ask for a new sign-in link.');
    }
    return;
  }
  if (refreshToken) sessionStorage.setItem(REFRESH, refreshToken.trim());
  else sessionStorage.removeItem(REFRESH);
  sessionStorage.setItem(ACCESS, token.trim());
  if (claims.exp * 1000 <= Date.now() && !(await refresh())) {
    signOut();
    throw new Error('This token has expired. Take a new one (npm run token) or use the sign-in link npm start prints.');
  }
  changed();
}

/**
 * Takes `#token=<jwt>&refresh=<jwt>` from the address (the sign-in link), stores the tokens and
 * removes the fragment from the address bar and the history entry.
 */
export async function signInFromFragment(): Promise<string | undefined> {
  if (!location.hash.startsWith('#')) return undefined;
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  if (!token) return undefined;
  history.replaceState(history.state, '', location.pathname + location.search);
  try {
    await signIn(token, fragment.get('refresh') ?? undefined);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
