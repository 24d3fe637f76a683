import type { ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';

/**
 * Provider metadata and the COMMON_DISCOVERY gate, looked up once per provider of the file: a
 * provider the gate refuses has its rows rejected (`PROVIDER_NOT_SUPPORTED`), the others import.
 */
export class ProviderCache {
  private readonly snapshots = new Map<string, ProviderMetadataSnapshot>();
  private readonly refusals = new Map<string, string | undefined>();

  constructor(
    private readonly refusalOf: (providerName: string) => Promise<string | undefined>,
    private readonly metadataFor: (providerName: string) => Promise<ProviderMetadataSnapshot>,
  ) {}

  readonly metadataOf = (providerName: string): ProviderMetadataSnapshot =>
    this.snapshots.get(providerName) ?? { categoriesByAssetType: new Map(), locationsByRegion: new Map() };

  /** Whether `prepare` already answered for this provider (its answer is then `refusalOf`, without waiting). */
  known(providerName: string): boolean {
    return this.refusals.has(providerName);
  }

  refusal(providerName: string): string | undefined {
    return this.refusals.get(providerName);
  }

  async prepare(providerName: string): Promise<string | undefined> {
    if (this.refusals.has(providerName)) return this.refusals.get(providerName);
    const refusal = await this.refusalOf(providerName);
    if (!refusal) this.snapshots.set(providerName, await this.metadataFor(providerName));
    this.refusals.set(providerName, refusal);
    return refusal;
  }
}
