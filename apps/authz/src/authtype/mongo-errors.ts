interface DuplicateKeyError {
  code?: number;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  message?: string;
}

/**
 * The fields (tenant left out) of the unique index a write collided with, or `undefined` when the
 * error is not a duplicate key (11000). Uses `keyPattern`, then `keyValue`, then the index name in
 * the message (`index: tenantId_1_name_1`).
 */
export function duplicateKeyFields(error: unknown): string[] | undefined {
  const duplicate = error as DuplicateKeyError | null | undefined;
  if (!duplicate || typeof duplicate !== 'object' || duplicate.code !== 11000) return undefined;
  const source = duplicate.keyPattern ?? duplicate.keyValue;
  let fields = source ? Object.keys(source) : [];
  if (fields.length === 0) {
    const indexName = /index: (\S+)/.exec(duplicate.message ?? '')?.[1] ?? '';
    fields = indexName.split('_').filter((part, i) => i % 2 === 0 && part !== '');
  }
  return fields.filter((field) => field !== 'tenantId');
}

export const isDuplicateKey = (error: unknown): boolean => duplicateKeyFields(error) !== undefined;
