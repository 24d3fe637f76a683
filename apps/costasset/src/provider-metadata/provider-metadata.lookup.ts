/** A location mapping of a provider region (docs/interface.md#provider-metadata). */
export interface LocationMapping {
  providerName: string;
  providerRegionCode: string;
  dataCenter?: string;
  url?: string;
  region?: string;
  subregion?: string;
  location?: string;
  state?: string;
  country?: string;
}

/** The provider metadata enrichment applies to a whole file, loaded once per provider. */
export interface ProviderMetadataSnapshot {
  /** asset type (ResourceType) → service category */
  categoriesByAssetType: Map<string, string>;
  /** provider region code (RegionId) → location */
  locationsByRegion: Map<string, LocationMapping>;
}

/** Read side of the provider metadata used by enrichment and remediation. */
export abstract class ProviderMetadataLookup {
  abstract snapshot(tenantId: string, providerName: string): Promise<ProviderMetadataSnapshot>;
}
