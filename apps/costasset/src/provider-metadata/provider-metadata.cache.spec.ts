import { Logger } from '@nestjs/common';
import type { MessageBus } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import type { LocationRepository } from './location.repository';
import { ProviderMetadataCache } from './provider-metadata.cache';
import type { ServiceCategoryRepository } from './service-category.repository';

type Handler = (event: { tenantId: string; providerNames: string[] }) => void;

function setUp() {
  const categories = {
    find: jest.fn(async (tenantId: string) =>
      tenantId === 't1'
        ? [
            { providerName: 'AWS', assetType: 'vm', serviceCategory: 'Compute' },
            { providerName: 'aws', assetType: 'vm', serviceCategory: 'Virtual machines' },
            { providerName: 'AWS', assetType: 'db', serviceCategory: 'Databases' },
            { providerName: 'gcp', assetType: 'vm', serviceCategory: 'GCE' },
          ]
        : [],
    ),
  };
  const locations = {
    find: jest.fn(async (tenantId: string) =>
      tenantId === 't1' ? [{ providerName: 'Aws', providerRegionCode: 'r1', region: 'Europe', country: 'DE' }] : [],
    ),
  };
  let handler: Handler | undefined;
  const bus = {
    subscribe: jest.fn(async (_subject: string, h: Handler) => {
      handler = h;
      return {};
    }),
    publish: jest.fn(async () => undefined),
  };
  const cache = new ProviderMetadataCache(
    categories as unknown as ServiceCategoryRepository,
    locations as unknown as LocationRepository,
    bus as unknown as MessageBus,
    new Metrics('costasset'),
  );
  cache.onModuleInit();
  return { cache, categories, locations, bus, deliver: (event: Parameters<Handler>[0]) => handler?.(event) };
}

describe('ProviderMetadataCache', () => {
  it("builds both maps with one query each on the tenant, from the provider's mappings whatever their case", async () => {
    const { cache, categories, locations } = setUp();
    const snapshot = await cache.snapshot('t1', 'aws');
    // a mapping in the file's own spelling wins over one in another case
    expect(snapshot.categoriesByAssetType).toEqual(
      new Map([
        ['vm', 'Virtual machines'],
        ['db', 'Databases'],
      ]),
    );
    expect(snapshot.locationsByRegion).toEqual(
      new Map([['r1', { providerName: 'aws', providerRegionCode: 'r1', region: 'Europe', country: 'DE' }]]),
    );
    expect((await cache.snapshot('t1', 'AWS')).categoriesByAssetType.get('vm')).toBe('Compute');
    expect(categories.find).toHaveBeenCalledTimes(2);
    expect(categories.find.mock.calls[0].slice(0, 2)).toEqual(['t1', {}]);
    expect(locations.find).toHaveBeenCalledTimes(2);
  });

  it('serves a cached snapshot until a write of the tenant drops it, and announces the write', async () => {
    const { cache, categories, bus } = setUp();
    const first = await cache.snapshot('t1', 'aws');
    await cache.snapshot('t2', 'aws');
    expect(await cache.snapshot('t1', 'aws')).toBe(first);
    expect(categories.find).toHaveBeenCalledTimes(2);

    await cache.changed('t1', ['aws', 'aws']);
    expect(bus.publish).toHaveBeenCalledWith('costasset.providermetadata.changed', { tenantId: 't1', providerNames: ['aws'] });
    expect(cache.cachedEntries()).toBe(1);
    expect(await cache.snapshot('t1', 'aws')).not.toBe(first);
    expect(categories.find).toHaveBeenCalledTimes(3);
  });

  it('drops the snapshots of a tenant when another instance announces a write', async () => {
    const { cache, deliver } = setUp();
    await cache.snapshot('t1', 'aws');
    await cache.snapshot('t1', 'gcp');
    await cache.snapshot('t2', 'aws');
    deliver({ tenantId: 't1', providerNames: ['aws'] });
    expect(cache.cachedEntries()).toBe(1);
  });

  it('keeps working when the change cannot be published, and does not cache a failed load', async () => {
    const { cache, categories, bus } = setUp();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    bus.publish.mockRejectedValueOnce(new Error('down'));
    await expect(cache.changed('t1', ['aws'])).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();

    categories.find.mockRejectedValueOnce(new Error('db down'));
    await expect(cache.snapshot('t1', 'aws')).rejects.toThrow('db down');
    await expect(cache.snapshot('t1', 'AWS')).resolves.toMatchObject({
      categoriesByAssetType: new Map([
        ['vm', 'Compute'],
        ['db', 'Databases'],
      ]),
    });
  });

  it('refuses a missing tenant', () => {
    const { cache } = setUp();
    expect(() => cache.snapshot('', 'aws')).toThrow('tenantId is required');
  });
});
