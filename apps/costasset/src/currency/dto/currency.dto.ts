import { ApiProperty } from '@nestjs/swagger';

export class InstanceCurrenciesResponse {
  @ApiProperty({ type: [String], example: ['USD', 'EUR'], description: 'ISO 4217 codes of INSTANCE_CURRENCIES in the core service (the default currency alone when unset)' })
  instanceCurrencies: string[];
}

export class DefaultCurrencyResponse {
  @ApiProperty({ example: 'USD', description: 'DEFAULT_CURRENCY of the core service (the corporate currency); USD when unset' })
  defaultCurrency: string;
}
