import { Body, Controller, Get, Param, Patch, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyMember, CostDataManager, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { AnomaliesService } from './anomalies.service';
import {
  AnomalyDto,
  AnomalyPage,
  AnomalySettingsRequest,
  AnomalySettingsResponse,
  ListAnomaliesQuery,
  UpdateAnomalyRequest,
} from './dto/anomaly.dto';

@ApiTags('anomalies')
@Controller('api/costasset/v1/anomalies')
export class AnomaliesController {
  constructor(private readonly anomalies: AnomaliesService) {}

  @Get()
  @AnyMember()
  @ApiOperation({
    summary: 'Cost anomalies of the series within the caller’s visibility, newest first',
    description: 'See the repository’s docs/anomalies.md.',
  })
  @ApiOkResponse({ type: AnomalyPage })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `INVALID_CURSOR`' })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListAnomaliesQuery): Promise<AnomalyPage> {
    return this.anomalies.list(principal, query);
  }

  @Get('settings')
  @AnyMember()
  @ApiOperation({ summary: 'The tenant’s detection parameters (its own, or the defaults)' })
  @ApiOkResponse({ type: AnomalySettingsResponse })
  settings(@CurrentPrincipal() principal: Principal): Promise<AnomalySettingsResponse> {
    return this.anomalies.getSettings(principal.tenantId);
  }

  @Put('settings')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Replaces the tenant’s detection parameters; one left out returns to its default. Later runs use them' })
  @ApiOkResponse({ type: AnomalySettingsResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`' })
  replaceSettings(@CurrentPrincipal() principal: Principal, @Body() body: AnomalySettingsRequest): Promise<AnomalySettingsResponse> {
    return this.anomalies.replaceSettings(principal.tenantId, body);
  }

  @Patch(':id')
  @CostDataManager()
  @ApiOperation({ summary: 'Acknowledges or dismisses (not an anomaly) an anomaly within the caller’s visibility, or re-opens it' })
  @ApiOkResponse({ type: AnomalyDto })
  @ApiNotFoundResponse({ description: '`ANOMALY_NOT_FOUND`: no such anomaly, or outside the caller’s visibility' })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`' })
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateAnomalyRequest): Promise<AnomalyDto> {
    return this.anomalies.setStatus(principal, id, body.status);
  }
}
