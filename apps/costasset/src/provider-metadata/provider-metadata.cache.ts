import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InvalidatingCache, MessageBus } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { LOCATION_FIELDS } from './location-fields';
import { LocationRepository } from './location.repository';
import { LocationMapping, ProviderMetadataLookup, ProviderMetadataSnapshot } from './provider-metadata.lookup';
import { ServiceCategoryRepository } from './service-category.repository';

/** Bounds staleness should an invalidation event be missed (NATS down while another instance wrote). */
const SNAPSHOT_TTL_MS = 30_000;
const MAX_SNAPSHOTS = 2_000;

const keyOf = (tenantId: string, providerName: string) => `${tenantId}\u0000${providerName}`;

/**
 * The `ProviderMetadataLookup` enrichment injects: one query per map, cached per tenant and
 * provider. Dropping the entry in process is not enough with several instances (enrichment jobs
 * run on any of them), so every write also publishes `costasset.providermetadata.changed` and
 * every instance, this one included, drops the tenant's snapshots when it arrives.
 */
@Injectable()
export class ProviderMetadataCache extends ProviderMetadataLookup implements OnModuleInit {
  private readonly logger = new Logger(ProviderMetadataCache.name);
  private readonly cache: InvalidatingCache<ProviderMetadataSnapshot>;

  constructor(
    private readonly categories: ServiceCategoryRepository,
    private readonly locations: LocationRepository,
    private readonly bus: MessageBus,
    metrics: Metrics,
  ) {
    super();
    this.cache = new InvalidatingCache({
      ttlMs: SNAPSHOT_TTL_MS,
      maxEntries: MAX_SNAPSHOTS,
      observer: metrics.cacheObserver('provider-metadata'),
    });
  }

  onModuleInit(): void {
    this.bus
      .subscribe('costasset.providermetadata.changed', (event) => void this.drop(event.tenantId))
      .catch((error: unknown) => this.logger.error({ err: error }, 'cannot subscribe to provider metadata changes'));
  }

  /** Callers share the cached maps: read them, never change them. */
  snapshot(tenantId: string, providerName: string): Promise<ProviderMetadataSnapshot> {
    if (!tenantId) throw new Error('tenantId is required');
    return this.cache.getOrLoad(keyOf(tenantId, providerName), () => this.load(tenantId, providerName));
  }

  /** Called after a write is committed: drops this instance's snapshots at once, then tells the others. */
  async changed(tenantId: string, providerNames: string[]): Promise<void> {
    this.drop(tenantId);
    try {
      await this.bus.publish('costasset.providermetadata.changed', { tenantId, providerNames: [...new Set(providerNames)] });
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message, tenantId },
        'provider metadata change not published; other instances rely on the TTL',
      );
    }
  }

  /** Number of cached snapshots (observability and tests). */
  cachedEntries(): number {
    return this.cache.size;
  }

  private drop(tenantId: string): number {
    return this.cache.invalidatePrefix(`${tenantId}\u0000`);
  }

  /**
   * A provider's mappings, whatever the case its files write its name in (`aws` applies to `AWS`
   * rows; a mapping written in the file's own spelling wins). The tenant's mappings are read on the
   * tenant index and matched here: a case-insensitive query would need an index of its own.
   */
  private async load(tenantId: string, providerName: string): Promise<ProviderMetadataSnapshot> {
    const same = (name: string) => name.toLowerCase() === providerName.toLowerCase();
    const exactLast = <T extends { providerName: string }>(records: T[]) =>
      records
        .filter((record) => same(record.providerName))
        .sort((a, b) => Number(a.providerName === providerName) - Number(b.providerName === providerName));
    const [allCategories, allLocations] = await Promise.all([
      this.categories.find(tenantId, {}, {}, { _id: 0, providerName: 1, assetType: 1, serviceCategory: 1 }),
      this.locations.find(
        tenantId,
        {},
        {},
        { _id: 0, providerName: 1, providerRegionCode: 1, ...Object.fromEntries(LOCATION_FIELDS.map((f) => [f, 1])) },
      ),
    ]);
    const categories = exactLast(allCategories);
    const locations = exactLast(allLocations);
    const locationsByRegion = new Map<string, LocationMapping>();
    for (const record of locations) {
      const mapping: LocationMapping = { providerName, providerRegionCode: record.providerRegionCode };
      for (const field of LOCATION_FIELDS) if (record[field] !== undefined) mapping[field] = record[field];
      locationsByRegion.set(record.providerRegionCode, mapping);
    }
    return {
      categoriesByAssetType: new Map(categories.map((record) => [record.assetType, record.serviceCategory])),
      locationsByRegion,
    };
  }
}
