/** MongoDB's error code for a write that collides with a unique index. */
export const DUPLICATE_KEY = 11000;

interface DuplicateKeyError {
  code?: number;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  message?: string;
  writeErrors?: unknown;
}

type KeyDocument = Record<string, unknown>;

/** The first write error of a bulk write (`insertMany`), where the driver keeps the key pattern. */
function firstWriteError(error: DuplicateKeyError): { keyPattern?: KeyDocument; keyValue?: KeyDocument } | undefined {
  const list = Array.isArray(error.writeErrors) ? error.writeErrors : error.writeErrors ? [error.writeErrors] : [];
  const first = list[0] as { err?: { keyPattern?: KeyDocument; keyValue?: KeyDocument }; keyPattern?: KeyDocument } | undefined;
  return first?.err ?? first;
}

/** Field names of the `dup key: { a: …, b: … }` part of the server's message (field names may hold `_`). */
function fieldsOfMessage(message: string): string[] {
  const dupKey = /dup key: \{(.*)\}/.exec(message)?.[1] ?? '';
  const named = [...dupKey.matchAll(/(?:^|,)\s*([^\s:,{}"]+):/g)].map((match) => match[1]);
  if (named.length > 0) return named;
  const indexName = /index: (\S+)/.exec(message)?.[1] ?? '';
  return indexName.split('_').filter((part, i) => i % 2 === 0 && part !== '');
}

/**
 * The fields (tenant left out) of the unique index a write collided with, or `undefined` when the
 * error is not a duplicate key. Uses `keyPattern`, then `keyValue` (of the error, or of the first
 * write error of a bulk write), then the `dup key` or index name of the message, as drivers and
 * servers fill them unevenly.
 */
export function duplicateKeyFields(error: unknown): string[] | undefined {
  const duplicate = error as DuplicateKeyError | null | undefined;
  if (!duplicate || typeof duplicate !== 'object' || duplicate.code !== DUPLICATE_KEY) return undefined;
  const written = firstWriteError(duplicate);
  const source = duplicate.keyPattern ?? duplicate.keyValue ?? written?.keyPattern ?? written?.keyValue;
  const fields = source ? Object.keys(source) : fieldsOfMessage(duplicate.message ?? '');
  return fields.filter((field) => field !== 'tenantId');
}

/** Whether a write failed only because a unique index already holds the key. */
export const isDuplicateKey = (error: unknown): boolean => duplicateKeyFields(error) !== undefined;

/** Whether every write error of an unordered bulk write is a duplicate key (e.g. a concurrent identical upsert). */
export function onlyDuplicateKeys(error: unknown): boolean {
  const writeErrors = (error as DuplicateKeyError | null)?.writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((e: { code?: number; err?: { code?: number } }) => (e.code ?? e.err?.code) === DUPLICATE_KEY);
}
