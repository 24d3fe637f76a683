import type { LocationMapping } from '../provider-metadata/provider-metadata.lookup';

/**
 * Line-item location fields and the mapping field each comes from. Enrichment's own mapping
 * (enrichment/row-validator.ts) is private to that file, so remediation keeps this small
 * equivalent: same fields, same names.
 */
export const LINE_ITEM_LOCATION_FIELDS = {
  location: 'location',
  country: 'country',
  state: 'state',
  subregion: 'subregion',
  locationRegion: 'region',
  dataCenter: 'dataCenter',
} as const satisfies Record<string, keyof LocationMapping>;

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

/** Pipeline update: cost = billedCost × rate, rounded to 6 decimals as enrichment does. */
export function costUpdate(rate: number, corporateCurrency: string): Record<string, unknown>[] {
  return [{ $set: { cost: { $round: [{ $multiply: ['$billedCost', rate] }, 6] }, currency: corporateCurrency } }];
}
