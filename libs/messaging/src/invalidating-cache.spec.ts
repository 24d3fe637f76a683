import { InvalidatingCache } from './invalidating-cache';

describe('InvalidatingCache', () => {
  it('loads once for concurrent readers and serves the cached value', async () => {
    const cache = new InvalidatingCache<number>({ ttlMs: 10_000, maxEntries: 10 });
    const load = jest.fn(async () => 42);
    const values = await Promise.all([cache.getOrLoad('a', load), cache.getOrLoad('a', load)]);
    expect(values).toEqual([42, 42]);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('drops entries by key prefix so the next read loads again', async () => {
    const cache = new InvalidatingCache<string>({ ttlMs: 10_000, maxEntries: 10 });
    await cache.getOrLoad('t1:alice', async () => 'old');
    await cache.getOrLoad('t2:bob', async () => 'kept');
    expect(cache.invalidatePrefix('t1:')).toBe(1);
    await expect(cache.getOrLoad('t1:alice', async () => 'new')).resolves.toBe('new');
    await expect(cache.getOrLoad('t2:bob', async () => 'reloaded')).resolves.toBe('kept');
  });

  it('does not keep failed loads and expires by TTL', async () => {
    const cache = new InvalidatingCache<string>({ ttlMs: 1, maxEntries: 10 });
    await expect(cache.getOrLoad('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(cache.getOrLoad('k', async () => 'up')).resolves.toBe('up');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(cache.getOrLoad('k', async () => 'fresh')).resolves.toBe('fresh');
  });

  it('stays within its size bound', async () => {
    const cache = new InvalidatingCache<number>({ ttlMs: 10_000, maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) await cache.getOrLoad(key, async () => 1);
    expect(cache.size).toBe(2);
  });
});
