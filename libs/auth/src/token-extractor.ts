import type { IncomingHttpHeaders } from 'node:http';

export const TOKEN_NAME = 'corelite-token';

function fromBearer(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  return match?.[1];
}

/**
 * Header `corelite-token`, then `Authorization: Bearer`. Never a cookie: a browser sends cookies
 * with cross-site requests (forms included), so a cookie would let any page act for a signed-in
 * user; a header is only ever set by the platform's own scripts and by API clients.
 */
export function extractToken(headers: IncomingHttpHeaders): string | undefined {
  const header = headers[TOKEN_NAME];
  const direct = Array.isArray(header) ? header[0] : header;
  return direct?.trim() || fromBearer(headers.authorization);
}
