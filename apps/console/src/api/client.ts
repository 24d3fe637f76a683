import createClient, { type Middleware } from 'openapi-fetch';
import { accessToken, isSignedIn, signOut, validAccessToken } from '../auth/session';
import type { paths as AuthzPaths } from './generated/authz';
import type { paths as CostassetPaths } from './generated/costasset';
import { ApiError, problemOf } from './problem';
import { saveBlob } from './save';

/**
 * Typed clients of both services, through the gateway (the console's own origin). Request and
 * response types come from the services' OpenAPI documents (generated at build time), so a change
 * of an operation the console uses fails the console's build.
 */
const session: Middleware = {
  async onRequest({ request }) {
    const token = await validAccessToken();
    // signed out meanwhile (an expired session): the request would only be refused
    if (!token) throw new ApiError(401, 'SIGNED_OUT', 'You are signed out.');
    request.headers.set('corelite-token', token);
    return request;
  },
  async onResponse({ request, response }) {
    // only the first refusal of a signed-in session signs out, so that its message stays
    if (response.status === 401 && isSignedIn() && request.headers.get('corelite-token') === accessToken()) {
      const problem = (await response
        .clone()
        .json()
        .catch(() => undefined)) as { code?: string } | undefined;
      signOut(problem?.code === 'TOKEN_EXPIRED' ? 'Your session has expired. Sign in again.' : 'Your token was refused. Sign in again.');
    }
    return response;
  },
};

export const authz = createClient<AuthzPaths>();
authz.use(session);
export const costasset = createClient<CostassetPaths>();
costasset.use(session);

type Answer<D> = { data?: D; error?: unknown; response: Response };

/** The data of a successful answer (undefined for 204); a problem+json answer is thrown as an ApiError. */
export async function unwrap<D>(call: Promise<Answer<D>>): Promise<D> {
  let answer: Answer<D>;
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(0, 'NETWORK_ERROR', `The server could not be reached (${(error as Error).message}).`);
  }
  if (!answer.response.ok) throw problemOf(answer.response.status, answer.error, answer.response.headers.get('x-request-id'));
  return answer.data as D;
}

/** A file download of an authenticated GET (the token travels in a header, so a plain link cannot do it). */
export async function download(path: string, query: URLSearchParams): Promise<void> {
  const token = await validAccessToken();
  const response = await fetch(`${path}?${query}`, { headers: token ? { 'corelite-token': token } : {} });
  if (!response.ok) throw problemOf(response.status, await response.json().catch(() => undefined), response.headers.get('x-request-id'));
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'download';
  saveBlob(await response.blob(), name);
}
