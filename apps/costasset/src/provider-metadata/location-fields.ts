/** The descriptive fields of a location mapping (spec §2.10), besides its key (providerName, providerRegionCode). */
export const LOCATION_FIELDS = ['dataCenter', 'url', 'region', 'subregion', 'location', 'state', 'country'] as const;

export type LocationField = (typeof LOCATION_FIELDS)[number];
export type LocationFields = Partial<Record<LocationField, string>>;
