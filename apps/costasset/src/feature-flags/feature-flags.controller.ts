import { Body, Controller, Get, HttpCode, Post, Put, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { FeatureFlagBody, FeatureFlagRecordResponse } from './dto/feature-flag.dto';
import { FeatureFlagsService } from './feature-flags.service';

@ApiTags('feature flags')
@Controller()
export class FeatureFlagsController {
  constructor(private readonly flags: FeatureFlagsService) {}

  @Post('api/costasset/v1/featureflag')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Wraps POST /core/featureflagmanagement/v1/featureflag: 201 when created, 200 when it existed' })
  @ApiCreatedResponse({ type: FeatureFlagRecordResponse })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: FeatureFlagBody,
    @Res({ passthrough: true }) response: Response,
  ): Promise<FeatureFlagRecordResponse> {
    const result = await this.flags.set(principal, body.configurationkey, body.configurationvalue, 'create');
    response.status(result.created ? 201 : 200);
    return result.flag;
  }

  @Get('api/costasset/v1/featureflag')
  @AnyMember()
  @ApiOperation({ summary: 'Wraps GET /core/featureflagmanagement/v1/featureflag (all flags of the tenant)' })
  @ApiOkResponse({ type: [FeatureFlagRecordResponse] })
  list(@CurrentPrincipal() principal: Principal): Promise<FeatureFlagRecordResponse[]> {
    return this.flags.list(principal);
  }

  @Put('api/costasset/v1/featureflag')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Wraps PUT /core/featureflagmanagement/v1/featureflag/{configurationKey} (404 FLAG_NOT_FOUND when missing)' })
  @ApiOkResponse({ type: FeatureFlagRecordResponse })
  async update(@CurrentPrincipal() principal: Principal, @Body() body: FeatureFlagBody): Promise<FeatureFlagRecordResponse> {
    return (await this.flags.set(principal, body.configurationkey, body.configurationvalue, 'update')).flag;
  }

  @Post('insights/v2/housekeeping/configuration')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Sets flags given as { "<flag name>": "true" } (e.g. BCM_813715_<provider>RI), creating missing ones' })
  @ApiBody({
    schema: { type: 'object', additionalProperties: { type: 'string', enum: ['true', 'false'] }, example: { BCM_813715_AWSRI: 'true' } },
  })
  @ApiOkResponse({ type: [FeatureFlagRecordResponse] })
  housekeepingConfiguration(
    @CurrentPrincipal() principal: Principal,
    @Body() body: Record<string, unknown>,
  ): Promise<FeatureFlagRecordResponse[]> {
    return this.flags.setMany(principal, body);
  }
}
