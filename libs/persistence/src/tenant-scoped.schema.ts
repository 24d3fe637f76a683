import { Schema } from 'mongoose';

export interface TenantOwned {
  tenantId: string;
}

/** Every collection carries the tenant, indexed, required and immutable. */
export function tenantScopedPlugin(schema: Schema): void {
  schema.add({ tenantId: { type: String, required: true, immutable: true, index: true } });
}
