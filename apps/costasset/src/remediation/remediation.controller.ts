import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { RemediateRequest, RemediateResponse } from './dto/remediate.dto';
import { RemediationService } from './remediation.service';

@ApiTags('remediation')
@Controller('api/costasset/v1/remediate')
export class RemediationController {
  constructor(private readonly remediation: RemediationService) {}

  @Post()
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Re-applies the current provider metadata and exchange rates to stored cost line items',
    description:
      '`serviceCategory`: category = the mapping of (providerName, assetType), else of (providerName, ' +
      'serviceName), else the FOCUS ServiceCategory of the row, else `Uncategorized`; `location`: ' +
      'location fields by (providerName, region), removed when unmapped; `currency`: cost = billedCost × rate of ' +
      'billingCurrency into the corporate currency, unrounded (currencies without a rate are left as they are and listed).',
  })
  @ApiOkResponse({ type: RemediateResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `REMEDIATION_PERIODS_INVALID`' })
  remediate(@CurrentPrincipal() principal: Principal, @Body() body: RemediateRequest): Promise<RemediateResponse> {
    return this.remediation.remediate(principal.tenantId, body);
  }
}
