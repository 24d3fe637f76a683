import { Injectable, OnModuleInit } from '@nestjs/common';
import { GetConfigValueReply, InvalidatingCache, MessageBus } from '@lib/messaging';
import { Metrics } from '@lib/metrics';

/**
 * Feature flags and configuration values of the core service, as costasset's rules read them:
 * asked over NATS, cached per tenant, dropped when the core announces a change, so that
 * flipping a flag takes effect without a restart.
 */
@Injectable()
export class CoreSettingsClient implements OnModuleInit {
  private readonly flags: InvalidatingCache<Map<string, string>>;
  private readonly values: InvalidatingCache<GetConfigValueReply['value']>;

  constructor(
    private readonly bus: MessageBus,
    metrics: Metrics,
  ) {
    this.flags = new InvalidatingCache({ ttlMs: 5 * 60_000, maxEntries: 10_000, observer: metrics.cacheObserver('feature-flags') });
    this.values = new InvalidatingCache({ ttlMs: 5 * 60_000, maxEntries: 50_000, observer: metrics.cacheObserver('config-values') });
  }

  onModuleInit(): void {
    void this.bus.subscribe('core.flags.changed', (event) => this.flags.invalidate(event.tenantId));
    void this.bus.subscribe('core.config.changed', (event) => {
      for (const key of event.keys) this.values.invalidate(`${event.tenantId}\u0000${key}`);
    });
  }

  async isEnabled(tenantId: string, flag: string): Promise<boolean> {
    const flags = await this.flags.getOrLoad(tenantId, async () => {
      const reply = await this.bus.request('core.flags.list', { tenantId });
      return new Map(reply.flags.map((f) => [f.configurationkey, f.configurationvalue]));
    });
    return flags.get(flag) === 'true';
  }

  async listValue(tenantId: string, key: string): Promise<string[]> {
    const value = await this.values.getOrLoad(
      `${tenantId}\u0000${key}`,
      async () => (await this.bus.request('core.config.get', { tenantId, key })).value,
    );
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  }
}
