import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const REQUEST_ID_HEADER = 'x-request-id';

/** Keeps a caller's request id when it is safe to log, otherwise makes one; echoes it back. */
export function requestIdFor(request: IncomingMessage, response: ServerResponse): string {
  const offered = request.headers[REQUEST_ID_HEADER];
  const id = typeof offered === 'string' && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
