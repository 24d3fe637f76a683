export const GPD_ENRICH_JOB = 'gpd.enrich';

export interface EnrichPayload {
  refId: string;
}

export function gpdObjectKey(tenantId: string, refId: string, fileName: string): string {
  return `tenants/${tenantId}/gpd/${refId}/${fileName}`;
}
