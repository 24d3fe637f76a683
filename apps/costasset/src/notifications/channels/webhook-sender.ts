import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, isForbiddenLiteral } from '../../outbound/host-policy';
import { DeliveryError, isTransientStatus, networkReason } from './delivery-error';
import { SIGNATURE_HEADER, signatureHeader } from './signature';

export interface WebhookRequest {
  url: string;
  secret: string;
  body: unknown;
  deliveryId: string;
  topic: string;
}

export interface WebhookOptions {
  allowPrivateHosts: boolean;
  timeoutMs: number;
  /** Unix seconds (tests pin it). */
  now?: () => number;
}

/** Bytes of an answer read before it is dropped (the answer's content is not used). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs the signed JSON body once. Redirects are not followed (a redirect could lead to another
 * host), every connection goes through the address guard, and the whole attempt has a deadline.
 * Resolves on 2xx; otherwise throws a `DeliveryError` that says whether to retry.
 */
export function postWebhook(target: WebhookRequest, options: WebhookOptions): Promise<void> {
  const url = new URL(target.url);
  const where = url.origin;
  const raw = JSON.stringify(target.body);
  const timestamp = (options.now ?? (() => Math.floor(Date.now() / 1000)))();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string, permanent: boolean) => {
      if (settled) return;
      settled = true;
      reject(new DeliveryError(`${where}: ${message}`, permanent));
    };
    if (!options.allowPrivateHosts && isForbiddenLiteral(url.hostname)) {
      return fail('the host is a private or loopback address (NOTIFICATION_HOST_NOT_ALLOWED)', true);
    }
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(raw),
          'user-agent': 'corelite-notifications',
          [SIGNATURE_HEADER]: signatureHeader(target.secret, raw, timestamp),
          'corelite-delivery': target.deliveryId,
          'corelite-topic': target.topic,
        },
        lookup: guardedLookup(options.allowPrivateHosts) as never,
        timeout: options.timeoutMs,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) response.destroy();
        });
        response.on('error', () => undefined);
        response.on('close', () => {
          if (status >= 200 && status < 300) {
            if (!settled) {
              settled = true;
              resolve();
            }
            return;
          }
          if (status >= 300 && status < 400) return fail(`answered ${status} (redirects are not followed)`, true);
          fail(`answered ${status}`, !isTransientStatus(status));
        });
      },
    );
    const timeout = () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
    const deadline = setTimeout(timeout, options.timeoutMs);
    req.on('timeout', timeout);
    req.on('close', () => clearTimeout(deadline));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRNOTALLOWED')
        return fail('the host resolves to a private or loopback address (NOTIFICATION_HOST_NOT_ALLOWED)', true);
      if (error.code === 'ETIMEDOUT') return fail(`no answer within ${options.timeoutMs} ms`, false);
      fail(`unreachable: ${networkReason(error.code)}`, false);
    });
    req.end(raw);
  });
}
