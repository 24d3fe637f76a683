import { LINE_ITEM_LOCATION_FIELDS } from '../imports/map/location-fields';
import type { LocationMapping } from '../provider-metadata/provider-metadata.lookup';

/** The update re-applying a region's location mapping: mapped fields set, the others removed (as enrichment leaves them absent). */
export function locationUpdate(mapping: LocationMapping | undefined): { $set?: Record<string, string>; $unset?: Record<string, ''> } {
  const set: Record<string, string> = {};
  const unset: Record<string, ''> = {};
  for (const [field, source] of Object.entries(LINE_ITEM_LOCATION_FIELDS)) {
    const value = mapping?.[source];
    if (value !== undefined && value !== '') set[field] = value;
    else unset[field] = '';
  }
  return { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) };
}

/** Pipeline update: cost = billedCost × rate, never rounded (as enrichment and the FOCUS import do). */
export function costUpdate(rate: number, corporateCurrency: string): Record<string, unknown>[] {
  return [{ $set: { cost: { $multiply: ['$billedCost', rate] }, currency: corporateCurrency } }];
}
