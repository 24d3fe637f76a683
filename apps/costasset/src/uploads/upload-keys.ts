import type { FocusFileFormat } from './schemas/upload.schema';

/**
 * Object-store keys of an upload's files (`tenants/<tenantId>/gpd/<refId>/…`, one folder for GPD and
 * FOCUS uploads alike) and the FOCUS format a file name tells.
 */

export function gpdObjectKey(tenantId: string, refId: string, fileName: string): string {
  return `tenants/${tenantId}/gpd/${refId}/${fileName}`;
}

/** Key of part `index` of a FOCUS upload: the name is percent-encoded, so any file name is stored as given. */
export function focusPartKey(tenantId: string, refId: string, index: number, name: string): string {
  return gpdObjectKey(tenantId, refId, `${index}-${encodeURIComponent(name)}`);
}

/** The format of a FOCUS file by its name: `.csv`, `.csv.gz` (or `.gz`), `.parquet`; undefined otherwise (a GPD zip). */
export function formatOfName(name: string): FocusFileFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.parquet')) return 'parquet';
  if (lower.endsWith('.csv.gz') || lower.endsWith('.gz')) return 'csv.gz';
  if (lower.endsWith('.csv')) return 'csv';
  return undefined;
}
