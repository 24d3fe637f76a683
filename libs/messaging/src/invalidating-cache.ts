import type { CacheObserver } from '@lib/metrics';

interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
}

export interface CacheOptions {
  ttlMs: number;
  maxEntries: number;
  /** Counts hits and misses (`metrics.cacheObserver('<name>')`). */
  observer?: CacheObserver;
}

/**
 * A small read-through cache. Entries are dropped by invalidation events (precise) and by a TTL
 * (a bound on staleness if an event was missed while NATS was down). Concurrent loads of one key
 * share a single promise; a failed load is not cached.
 */
export class InvalidatingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly options: CacheOptions) {}

  getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) {
      this.options.observer?.hit();
      return hit.value;
    }
    this.options.observer?.miss();
    const value = load();
    this.entries.set(key, { value, expiresAt: now + this.options.ttlMs });
    value.catch(() => this.entries.get(key)?.value === value && this.entries.delete(key));
    this.evictOverflow();
    return value;
  }

  invalidate(key: string): void {
    this.entries.delete(key);
  }

  invalidatePrefix(prefix: string): number {
    let dropped = 0;
    for (const key of this.entries.keys()) {
      if (key.startsWith(prefix)) {
        this.entries.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  }

  get size(): number {
    return this.entries.size;
  }

  private evictOverflow(): void {
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
