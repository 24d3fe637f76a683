const SECRET_FIELDS = /^(password|secret|apiToken|api_token|token|refresh_token|access_token|privateKey)$/i;
export const MASK = '********';

/** A deep copy with every secret-looking field replaced by the mask (for audit records and logs). */
export function maskSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item)) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.entries(value as Record<string, unknown>).map(([key, inner]) => [
      key,
      SECRET_FIELDS.test(key) && inner !== undefined && inner !== null ? MASK : maskSecrets(inner),
    ]);
    return Object.fromEntries(entries) as T;
  }
  return value;
}
