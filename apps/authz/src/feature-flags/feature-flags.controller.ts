import { Body, Controller, Get, Param, Post, Put, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { FeatureFlagRequest, FeatureFlagResponse, FlagKeyParams } from './dto/feature-flag.dto';
import { FeatureFlagsService } from './feature-flags.service';

@ApiTags('feature flags')
@Controller('core/featureflagmanagement/v1/featureflag')
export class FeatureFlagsController {
  constructor(private readonly flags: FeatureFlagsService) {}

  @Post()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Create or set a feature flag (System Admin)',
    description:
      'Accepts `{ flag_key, flag_value }` or `{ configurationkey, configurationvalue }`, ' +
      'values `"true"` / `"false"`. Audited; announced on `core.flags.changed`.',
  })
  @ApiCreatedResponse({ type: FeatureFlagResponse, description: 'The flag was created' })
  @ApiOkResponse({ type: FeatureFlagResponse, description: 'The flag existed and was set' })
  @ApiBadRequestResponse({
    description: '`VALIDATION_FAILED`: a mix of both shapes, a missing field, or a value other than "true"/"false"',
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: FeatureFlagRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<FeatureFlagResponse> {
    const { flag, created } = await this.flags.write(principal, body, 'create');
    response.status(created ? 201 : 200);
    return flag;
  }

  @Get()
  @AnyMember()
  @ApiOperation({ summary: 'All feature flags of the tenant, by key' })
  @ApiOkResponse({ type: [FeatureFlagResponse] })
  list(@CurrentPrincipal() principal: Principal): Promise<FeatureFlagResponse[]> {
    return this.flags.list(principal.tenantId);
  }

  @Put(':configurationKey')
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Set an existing feature flag (System Admin)',
    description: 'Accepts either body shape; a key in the body must equal the path key. Create flags with POST.',
  })
  @ApiOkResponse({ type: FeatureFlagResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, or `FLAG_KEY_MISMATCH` when the body names another key than the path' })
  @ApiNotFoundResponse({ description: '`FLAG_NOT_FOUND`' })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param() params: FlagKeyParams,
    @Body() body: FeatureFlagRequest,
  ): Promise<FeatureFlagResponse> {
    return (await this.flags.write(principal, body, 'update', params.configurationKey)).flag;
  }
}
