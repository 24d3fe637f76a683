/** The system a transient fault came from, as the job's error names it. */
export type FaultSource = 'database' | 'object store' | 'message queue' | 'network' | 'export source';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const DATABASE_ERRORS = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);
const OBJECT_STORE_CODES = new Set(['SlowDown', 'InternalError', 'ServiceUnavailable', 'RequestTimeout', 'RequestTimeTooSkewed']);
const MESSAGE_QUEUE_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'DISCONNECT', 'TIMEOUT', '503']);

/**
 * A fault that another attempt may not meet: a system the job depends on was unreachable or
 * overloaded. Thrown by a stage that knows which system it called, so the job's error names it.
 */
export class TransientFault extends Error {
  constructor(
    readonly source: FaultSource,
    override readonly cause: unknown,
  ) {
    super(`${source} unreachable: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

interface ErrorLike {
  name?: string;
  code?: unknown;
  message?: string;
  statusCode?: number;
  cause?: unknown;
}

/** The source of a transient fault, following `cause`; undefined for a fault a retry cannot fix. */
export function transientSource(error: unknown, depth = 0): FaultSource | undefined {
  if (error instanceof TransientFault) return error.source;
  if (!error || typeof error !== 'object' || depth > 4) return undefined;
  const { name = '', code, message = '', statusCode, cause } = error as ErrorLike;
  if (DATABASE_ERRORS.has(name) || /buffering timed out|^connection \d+ to \S+ (closed|timed out)/.test(message)) return 'database';
  if (name === 'NatsError' && MESSAGE_QUEUE_CODES.has(String(code))) return 'message queue';
  if (name === 'S3Error' && (OBJECT_STORE_CODES.has(String(code)) || (statusCode ?? 0) >= 500)) return 'object store';
  // Azure Blob Storage's client (data connections)
  if (name === 'RestError' && ((statusCode ?? 0) >= 500 || code === 'REQUEST_SEND_ERROR')) return 'object store';
  if (NETWORK_CODES.has(String(code)) || /socket hang up|ECONNREFUSED|ECONNRESET/.test(message)) return 'network';
  return transientSource(cause, depth + 1);
}

/** The error a job reports: a transient fault says what was unreachable. */
export function describeFault(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof TransientFault) return message;
  const source = transientSource(error);
  return source ? `${source} unreachable: ${message}` : message;
}

/** Throws `TransientFault` naming `source` when the error is transient, else nothing. */
export function rethrowTransient(source: FaultSource, error: unknown): void {
  if (error instanceof TransientFault) throw error;
  if (transientSource(error)) throw new TransientFault(source, error);
}
