import { Injectable, OnModuleInit } from '@nestjs/common';
import { InvalidatingCache, MessageBus } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { CurrencyConversion, CurrencyConverter } from './currency-converter';

export const CURRENCY_KEYS = ['INSTANCE_CURRENCIES', 'DEFAULT_CURRENCY', 'CURRENCY_EXCHANGE_RATES'] as const;

/** Used when the core holds no DEFAULT_CURRENCY (documented in the OpenAPI description). */
export const FALLBACK_CURRENCY = 'USD';

export interface TenantCurrencies {
  defaultCurrency: string;
  instanceCurrencies: string[];
  /** Units of the default currency one unit of each currency is worth. */
  exchangeRates: Record<string, number>;
}

function asCurrencyList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((c) => typeof c === 'string') ? (value as string[]) : undefined;
}

function asRates(value: unknown): Record<string, number> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(
      (entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0,
    ),
  );
}

/**
 * The corporate currency lives in the core service (docs/interface.md#configuration-values-and-feature-flags). Asked over NATS, cached per
 * tenant, and dropped as soon as the core announces a change of one of the currency keys.
 */
@Injectable()
export class CurrencyService extends CurrencyConverter implements OnModuleInit {
  private readonly cache: InvalidatingCache<TenantCurrencies>;

  constructor(
    private readonly bus: MessageBus,
    metrics: Metrics,
  ) {
    super();
    this.cache = new InvalidatingCache({ ttlMs: 5 * 60_000, maxEntries: 10_000, observer: metrics.cacheObserver('currencies') });
  }

  onModuleInit(): void {
    void this.bus.subscribe('core.config.changed', (event) => {
      if (event.keys.some((key) => (CURRENCY_KEYS as readonly string[]).includes(key))) this.cache.invalidate(event.tenantId);
    });
  }

  currencies(tenantId: string): Promise<TenantCurrencies> {
    return this.cache.getOrLoad(tenantId, async () => {
      const [instance, byDefault, rates] = await Promise.all(
        CURRENCY_KEYS.map((key) => this.bus.request('core.config.get', { tenantId, key })),
      );
      const defaultCurrency = typeof byDefault.value === 'string' ? byDefault.value : FALLBACK_CURRENCY;
      return {
        defaultCurrency,
        instanceCurrencies: asCurrencyList(instance.value) ?? [defaultCurrency],
        exchangeRates: asRates(rates.value),
      };
    });
  }

  async conversionFor(tenantId: string): Promise<CurrencyConversion> {
    const { defaultCurrency, exchangeRates } = await this.currencies(tenantId);
    return {
      corporateCurrency: defaultCurrency,
      rateOf: (currency) => (currency === defaultCurrency ? 1 : exchangeRates[currency]),
    };
  }
}
