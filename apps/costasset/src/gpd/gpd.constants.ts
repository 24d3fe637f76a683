import type { FocusFileFormat } from './schemas/gpd-upload.schema';

export const GPD_ENRICH_JOB = 'gpd.enrich';

export interface EnrichPayload {
  refId: string;
}

export function gpdObjectKey(tenantId: string, refId: string, fileName: string): string {
  return `tenants/${tenantId}/gpd/${refId}/${fileName}`;
}

export const FOCUS_IMPORT_JOB = 'focus.import';

export interface ImportPayload {
  refId: string;
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
