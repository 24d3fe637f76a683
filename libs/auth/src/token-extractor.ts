import type { IncomingHttpHeaders } from 'node:http';

export const TOKEN_NAME = 'corelite-token';

function fromCookie(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === TOKEN_NAME) {
      return decodeURIComponent(part.slice(separator + 1).trim());
    }
  }
  return undefined;
}

function fromBearer(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  return match?.[1];
}

/** Header `corelite-token`, cookie `corelite-token`, `Authorization: Bearer`, in that order (contract §2). */
export function extractToken(headers: IncomingHttpHeaders): string | undefined {
  const header = headers[TOKEN_NAME];
  const direct = Array.isArray(header) ? header[0] : header;
  return direct?.trim() || fromCookie(headers.cookie) || fromBearer(headers.authorization);
}
