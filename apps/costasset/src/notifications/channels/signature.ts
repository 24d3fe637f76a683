import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header every webhook request carries: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export const SIGNATURE_HEADER = 'corelite-signature';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export const generateSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export function signatureHeader(secret: string, rawBody: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/**
 * What a receiver does (docs/notifications.md): recompute the HMAC over the raw body, compare in
 * constant time, and refuse a timestamp older (or newer) than `toleranceSeconds`.
 */
export function verifySignature(secret: string, rawBody: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || !parts.v1 || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureHeader(secret, rawBody, timestamp).split('v1=')[1], 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
