import type { LocationMapping, ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';

/** Line-item location fields and the mapping field each comes from (enrichment, import and remediation). */
export const LINE_ITEM_LOCATION_FIELDS = {
  location: 'location',
  country: 'country',
  state: 'state',
  subregion: 'subregion',
  locationRegion: 'region',
  dataCenter: 'dataCenter',
} as const satisfies Record<string, keyof LocationMapping>;

/** The mapped location fields of a region; unmapped fields are left out. */
export function locationFields(metadata: ProviderMetadataSnapshot, regionId: string | undefined): Record<string, string> {
  const mapping = regionId ? metadata.locationsByRegion.get(regionId) : undefined;
  const fields: Record<string, string> = {};
  if (!mapping) return fields;
  for (const [field, source] of Object.entries(LINE_ITEM_LOCATION_FIELDS)) {
    const value = mapping[source];
    if (value !== undefined && value !== '') fields[field] = value;
  }
  return fields;
}

/**
 * `Object.assign(doc, locationFields(metadata, regionId))` without the intermediate object, by
 * named stores in the order of LINE_ITEM_LOCATION_FIELDS (a cost document stays a fast object).
 */
export function setLocationFields(doc: Record<string, unknown>, metadata: ProviderMetadataSnapshot, regionId: string | undefined): void {
  const mapping = regionId ? metadata.locationsByRegion.get(regionId) : undefined;
  if (!mapping) return;
  const present = (value: string | undefined): value is string => value !== undefined && value !== '';
  if (present(mapping.location)) doc.location = mapping.location;
  if (present(mapping.country)) doc.country = mapping.country;
  if (present(mapping.state)) doc.state = mapping.state;
  if (present(mapping.subregion)) doc.subregion = mapping.subregion;
  if (present(mapping.region)) doc.locationRegion = mapping.region;
  if (present(mapping.dataCenter)) doc.dataCenter = mapping.dataCenter;
}
