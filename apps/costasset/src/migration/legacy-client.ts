import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, isForbiddenLiteral } from '../outbound/host-policy';

export interface LegacyClientOptions {
  allowPrivateHosts: boolean;
  timeoutMs: number;
  maxBytes: number;
}

/** `permanent`: another attempt cannot help (refused address, 4xx, redirect, bad body). */
export class LegacyReadError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export function accountsUrl(legacyURL: string): URL {
  const base = new URL(legacyURL);
  base.pathname = `${base.pathname.replace(/\/+$/, '')}/api/v1/accounts`;
  base.search = '';
  base.hash = '';
  return base;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

/**
 * Reads the legacy account list with the caller's token. Redirects are not followed (a
 * redirect could lead to another host), the body is capped, and every connection goes through
 * the address guard. Messages never contain the token.
 */
export function readLegacyAccounts(legacyURL: string, apiToken: string, userName: string, options: LegacyClientOptions): Promise<unknown> {
  const url = accountsUrl(legacyURL);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const where = `${url.protocol}//${url.host}`;
  return new Promise((resolve, reject) => {
    const fail = (message: string, permanent: boolean) => reject(new LegacyReadError(`legacy service ${where}: ${message}`, permanent));
    // An address literal is connected to without a lookup, so the guard is applied here.
    if (!options.allowPrivateHosts && isForbiddenLiteral(url.hostname)) {
      return fail('the host is a private or loopback address (MIGRATION_HOST_NOT_ALLOWED)', true);
    }
    const req = send(
      url,
      {
        method: 'GET',
        headers: { Authorization: `Bearer ${apiToken}`, 'X-User-Name': userName, Accept: 'application/json' },
        lookup: guardedLookup(options.allowPrivateHosts) as never,
        timeout: options.timeoutMs,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status >= 300) {
          response.resume();
          if (status < 400) return fail(`answered ${status} (redirects are not followed)`, true);
          return fail(`answered ${status}`, status < 500 && status !== 429);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            req.destroy();
            fail(`the response is larger than ${options.maxBytes} bytes`, true);
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', () => fail('the response was interrupted', false));
        response.on('end', () => {
          if (size > options.maxBytes) return;
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            fail('the response is not JSON', true);
          }
        });
      },
    );
    const deadline = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), options.timeoutMs);
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('close', () => clearTimeout(deadline));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRNOTALLOWED')
        return fail('the host resolves to a private or loopback address (MIGRATION_HOST_NOT_ALLOWED)', true);
      if (error.code === 'ETIMEDOUT') return fail(`no answer within ${options.timeoutMs} ms`, false);
      fail(`unreachable: ${NETWORK_REASONS[error.code ?? ''] ?? error.code ?? 'connection failed'}`, false);
    });
    req.end();
  });
}
