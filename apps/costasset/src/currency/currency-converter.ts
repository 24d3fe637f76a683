/** Converts amounts into the tenant's corporate currency (DEFAULT_CURRENCY of the core service). */
export interface CurrencyConversion {
  corporateCurrency: string;
  /** Units of the corporate currency that one unit of `currency` is worth. */
  rateOf(currency: string): number | undefined;
}

export abstract class CurrencyConverter {
  /**
   * The tenant's corporate currency and exchange rates, as the core service holds them now
   * (cached; dropped by `core.config.changed`). Throws 503 when the core cannot be asked.
   */
  abstract conversionFor(tenantId: string): Promise<CurrencyConversion>;
}
