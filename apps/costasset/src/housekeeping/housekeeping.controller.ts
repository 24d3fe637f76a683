import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { EnrichedCleanupResult, OutdatedCleanupResult, TemporaryCleanupResult } from './dto/housekeeping.dto';
import { HousekeepingService } from './housekeeping.service';

@ApiTags('housekeeping')
@Controller('orc/costasset/v1/housekeeping')
@SystemAdminOnly()
export class HousekeepingController {
  constructor(private readonly housekeeping: HousekeepingService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cleans up temporary collections',
    description:
      'Removes saved report outputs older than REPORT_OUTPUT_RETENTION_DAYS and finished ' +
      'job records (succeeded, failed, terminated) older than JOB_RETENTION_DAYS.',
  })
  @ApiOkResponse({ type: TemporaryCleanupResult })
  temporary(@CurrentPrincipal() principal: Principal): Promise<TemporaryCleanupResult> {
    return this.housekeeping.temporary(principal.tenantId);
  }

  @Post('clean')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Removes all enriched data of the tenant (cost line items, assets, utilization); loaded or failed uploads become `cleaned`',
  })
  @ApiOkResponse({ type: EnrichedCleanupResult })
  clean(@CurrentPrincipal() principal: Principal): Promise<EnrichedCleanupResult> {
    return this.housekeeping.enriched(principal.tenantId);
  }

  @Post('cleanupoutdateddata')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Removes cost line items, assets and utilization whose period is before the current month minus DATA_RETENTION_MONTHS',
  })
  @ApiOkResponse({ type: OutdatedCleanupResult })
  outdated(@CurrentPrincipal() principal: Principal): Promise<OutdatedCleanupResult> {
    return this.housekeeping.outdated(principal.tenantId);
  }
}
