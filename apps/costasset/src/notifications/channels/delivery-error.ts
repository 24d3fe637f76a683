/**
 * A failed attempt. `permanent`: another attempt cannot help (a 4xx other than 408/429, an SMTP
 * 5xx, a refused address, a redirect): the delivery ends `failed` at once. Otherwise it is retried.
 * Messages name the target by its origin only, never a secret.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Whether an HTTP status is worth another attempt (5xx, 408, 429) — 2xx is success, every other status is permanent. */
export const isTransientStatus = (status: number) => status >= 500 || status === 408 || status === 429;

/** Whether an SMTP reply code is worth another attempt: 4xx is transient, 5xx permanent. */
export const isTransientSmtpCode = (code: number) => code >= 400 && code < 500;

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'no answer in time',
  ESOCKET: 'the connection failed',
  ECONNECTION: 'the connection failed',
};

export const networkReason = (code: string | undefined) => NETWORK_REASONS[code ?? ''] ?? code ?? 'the connection failed';
