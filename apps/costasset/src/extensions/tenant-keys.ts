import { hasControlCharacter } from './archive/entry-path';

/**
 * Object keys of the extensions feature. Everything of a tenant lives under `tenants/<tenantId>/`;
 * the data routes (list, delete, download) speak in keys relative to that prefix, so a tenant
 * never sees nor names another tenant's prefix.
 */
export const tenantPrefix = (tenantId: string) => `tenants/${tenantId}/`;

export const extensionFolder = (tenantId: string, providerCode: string) => `${tenantPrefix(tenantId)}extensions/${providerCode}/`;
export const extensionKey = (tenantId: string, providerCode: string, fileName: string) =>
  `${extensionFolder(tenantId, providerCode)}${fileName}`;
export const rawUploadKey = (tenantId: string, providerCode: string, fileName: string) =>
  `${tenantPrefix(tenantId)}raw/${providerCode}/uploads/${fileName}`;
export const rawExpandedFolder = (tenantId: string, providerCode: string) => `${tenantPrefix(tenantId)}raw/${providerCode}/expanded/`;
/** Each raw upload expands into a folder of its own, so that a flow reads one upload's files only. */
export const rawUploadExpandedFolder = (tenantId: string, providerCode: string, rawFile: string) =>
  `${rawExpandedFolder(tenantId, providerCode)}${rawFile}/`;

const MAX_KEY_LENGTH = 900;

/**
 * The full key of a key relative to the tenant prefix, or null when it could point anywhere
 * else: absolute, `.`/`..` or empty segments, backslashes, control characters.
 */
export function resolveTenantKey(tenantId: string, relativeKey: string): string | null {
  if (!relativeKey || relativeKey.length > MAX_KEY_LENGTH) return null;
  if (relativeKey.startsWith('/') || relativeKey.includes('\\') || hasControlCharacter(relativeKey)) return null;
  if (relativeKey.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return null;
  return `${tenantPrefix(tenantId)}${relativeKey}`;
}

export function relativeToTenant(tenantId: string, fullKey: string): string {
  const prefix = tenantPrefix(tenantId);
  return fullKey.startsWith(prefix) ? fullKey.slice(prefix.length) : fullKey;
}
