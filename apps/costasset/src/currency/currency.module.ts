import { Global, Module } from '@nestjs/common';
import { CurrencyController } from './currency.controller';
import { CurrencyConverter } from './currency-converter';
import { CurrencyService } from './currency.service';

@Global()
@Module({
  controllers: [CurrencyController],
  providers: [CurrencyService, { provide: CurrencyConverter, useExisting: CurrencyService }],
  exports: [CurrencyService, CurrencyConverter],
})
export class CurrencyModule {}
