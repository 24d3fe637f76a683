import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal } from '@lib/auth';
import { CurrencyService } from './currency.service';
import { DefaultCurrencyResponse, InstanceCurrenciesResponse } from './dto/currency.dto';

@ApiTags('currency')
@ApiServiceUnavailableResponse({ description: 'The core service cannot be reached over NATS' })
@Controller('api/costasset/v1/currency')
export class CurrencyController {
  constructor(private readonly currency: CurrencyService) {}

  @Get('instanceCurrencies')
  @AnyMember()
  @ApiOperation({ summary: 'Instance currencies held by the core service' })
  @ApiOkResponse({ type: InstanceCurrenciesResponse })
  async instanceCurrencies(@CurrentPrincipal() principal: Principal): Promise<InstanceCurrenciesResponse> {
    return { instanceCurrencies: (await this.currency.currencies(principal.tenantId)).instanceCurrencies };
  }

  @Get('defaultCurrency')
  @AnyMember()
  @ApiOperation({ summary: 'The corporate (default) currency held by the core service' })
  @ApiOkResponse({ type: DefaultCurrencyResponse })
  async defaultCurrency(@CurrentPrincipal() principal: Principal): Promise<DefaultCurrencyResponse> {
    return { defaultCurrency: (await this.currency.currencies(principal.tenantId)).defaultCurrency };
  }
}
