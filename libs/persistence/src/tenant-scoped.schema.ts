import { Schema } from 'mongoose';

export interface TenantOwned {
  tenantId: string;
}

/**
 * Every collection carries the tenant, required and immutable. It gets no index of its own:
 * each schema declares compound indexes led by `tenantId` for the queries it serves.
 */
export function tenantScopedPlugin(schema: Schema): void {
  schema.add({ tenantId: { type: String, required: true, immutable: true } });
}
