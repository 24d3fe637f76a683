/** MongoDB's error code for a write that collides with a unique index. */
export const DUPLICATE_KEY = 11000;

interface DuplicateKeyError {
  code?: number;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  message?: string;
  writeErrors?: unknown;
}

/**
 * The fields (tenant left out) of the unique index a write collided with, or `undefined` when the
 * error is not a duplicate key. Uses `keyPattern`, then `keyValue`, then the index name in the
 * message (`index: tenantId_1_name_1`), as drivers and servers fill them unevenly.
 */
export function duplicateKeyFields(error: unknown): string[] | undefined {
  const duplicate = error as DuplicateKeyError | null | undefined;
  if (!duplicate || typeof duplicate !== 'object' || duplicate.code !== DUPLICATE_KEY) return undefined;
  const source = duplicate.keyPattern ?? duplicate.keyValue;
  let fields = source ? Object.keys(source) : [];
  if (fields.length === 0) {
    const indexName = /index: (\S+)/.exec(duplicate.message ?? '')?.[1] ?? '';
    fields = indexName.split('_').filter((part, i) => i % 2 === 0 && part !== '');
  }
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
