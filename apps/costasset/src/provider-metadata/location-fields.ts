/** A location mapping's descriptive fields, besides its key (providerName, providerRegionCode): docs/interface.md#provider-metadata. */
export const LOCATION_FIELDS = ['dataCenter', 'url', 'region', 'subregion', 'location', 'state', 'country'] as const;

export type LocationField = (typeof LOCATION_FIELDS)[number];
export type LocationFields = Partial<Record<LocationField, string>>;
