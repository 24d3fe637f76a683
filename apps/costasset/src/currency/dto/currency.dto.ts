import { ApiProperty } from '@nestjs/swagger';

export class InstanceCurrenciesResponse {
  /** ISO 4217 codes of INSTANCE_CURRENCIES in the core service (the default currency alone when unset) */
  @ApiProperty({ type: [String], example: ['USD', 'EUR'] })
  instanceCurrencies: string[];
}

export class DefaultCurrencyResponse {
  /**
   * DEFAULT_CURRENCY of the core service (the corporate currency); USD when unset
   * @example "USD"
   */
  defaultCurrency: string;
}
