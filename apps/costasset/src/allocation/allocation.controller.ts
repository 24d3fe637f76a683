import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { HeavyRoute } from '@lib/http';
import { AllocationService } from './allocation.service';
import { showbackCsv, showbackFocusCsv, ShowbackService } from './showback.service';
import {
  AllocationSettingsResponse,
  DimensionListResponse,
  DimensionPreviewRequest,
  DimensionPreviewResponse,
  DimensionRequest,
  DimensionResponse,
  DimensionVersionListResponse,
  ObservedTagKeysResponse,
  PeriodRangeQuery,
  ProvidersRequest,
  ProvidersResponse,
  ShowbackQuery,
  ShowbackResponse,
  SplitRulesRequest,
  SplitRulesResponse,
  TagKeyRequest,
  UpdateDimensionRequest,
} from './dto/allocation.dto';

@ApiTags('allocation')
@Controller('api/costasset/v1/allocation')
export class AllocationController {
  constructor(
    private readonly allocation: AllocationService,
    private readonly showbacks: ShowbackService,
  ) {}

  @Get()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The activated tag keys, the dimensions, and whether the rollups hold the current settings (System Admin)' })
  @ApiOkResponse({ type: AllocationSettingsResponse })
  overview(@CurrentPrincipal() principal: Principal): Promise<AllocationSettingsResponse> {
    return this.allocation.overview(principal.tenantId);
  }

  @Get('tagKeys')
  @HeavyRoute()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The tag keys of the line items of a range of periods, with the share of cost carrying each (System Admin)' })
  @ApiOkResponse({ type: ObservedTagKeysResponse })
  tagKeys(@CurrentPrincipal() principal: Principal, @Query() query: PeriodRangeQuery): Promise<ObservedTagKeysResponse> {
    return this.allocation.observedTagKeys(principal.tenantId, query);
  }

  @Post('tagKeys/activate')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Activate a tag key (in one group, or in any without `group`): it becomes a rollup dimension (System Admin)',
    description: 'The rollups are recomputed by a job (`rollups.jobId`); until it ends, queries reading the key answer from line items.',
  })
  @ApiOkResponse({ type: AllocationSettingsResponse })
  @ApiConflictResponse({ description: '`TAG_KEY_ACTIVE`, `ALLOCATION_LIMIT`' })
  activate(@CurrentPrincipal() principal: Principal, @Body() body: TagKeyRequest): Promise<AllocationSettingsResponse> {
    return this.allocation.activate(principal, body);
  }

  @Post('tagKeys/deactivate')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Deactivate a tag key (System Admin); the rollups are recomputed by a job' })
  @ApiOkResponse({ type: AllocationSettingsResponse })
  @ApiNotFoundResponse({ description: '`TAG_KEY_NOT_ACTIVE`' })
  deactivate(@CurrentPrincipal() principal: Principal, @Body() body: TagKeyRequest): Promise<AllocationSettingsResponse> {
    return this.allocation.deactivate(principal, body);
  }

  @Get('dimensions')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The virtual dimensions of the tenant (System Admin)' })
  @ApiOkResponse({ type: DimensionListResponse })
  async dimensions(@CurrentPrincipal() principal: Principal): Promise<DimensionListResponse> {
    return { items: await this.allocation.dimensions(principal.tenantId) };
  }

  @Post('dimensions')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Create a virtual dimension: ordered rules, the first match sets the value (System Admin)' })
  @ApiCreatedResponse({ type: DimensionResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `INVALID_EXPRESSION` (with `rule` and `position`)' })
  @ApiConflictResponse({ description: '`DIMENSION_EXISTS`, `ALLOCATION_LIMIT`' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: DimensionRequest): Promise<DimensionResponse> {
    return this.allocation.createDimension(principal, body);
  }

  @Post('dimensions/preview')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'What rules would take before they are saved: cost and line items per rule and per value, and what stays unallocated',
  })
  @ApiOkResponse({ type: DimensionPreviewResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `INVALID_EXPRESSION`' })
  preview(@CurrentPrincipal() principal: Principal, @Body() body: DimensionPreviewRequest): Promise<DimensionPreviewResponse> {
    return this.allocation.preview(principal.tenantId, body);
  }

  @Get('dimensions/:name')
  @SystemAdminOnly()
  @ApiParam({ name: 'name', description: 'The dimension name' })
  @ApiOperation({ summary: 'One virtual dimension (System Admin)' })
  @ApiOkResponse({ type: DimensionResponse })
  @ApiNotFoundResponse({ description: '`DIMENSION_NOT_FOUND`' })
  dimension(@CurrentPrincipal() principal: Principal, @Param('name') name: string): Promise<DimensionResponse> {
    return this.allocation.dimension(principal.tenantId, name);
  }

  @Put('dimensions/:name')
  @SystemAdminOnly()
  @ApiParam({ name: 'name', description: 'The dimension name' })
  @ApiOperation({ summary: "Replace a dimension's rules (System Admin): applies to all data, old and new, once its job ends" })
  @ApiOkResponse({ type: DimensionResponse })
  @ApiNotFoundResponse({ description: '`DIMENSION_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`DIMENSION_VERSION_CONFLICT`' })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @Body() body: UpdateDimensionRequest,
  ): Promise<DimensionResponse> {
    return this.allocation.updateDimension(principal, name, body);
  }

  @Delete('dimensions/:name')
  @HttpCode(204)
  @SystemAdminOnly()
  @ApiParam({ name: 'name', description: 'The dimension name' })
  @ApiOperation({ summary: 'Delete a dimension (System Admin); its history stays' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ description: '`DIMENSION_NOT_FOUND`' })
  remove(@CurrentPrincipal() principal: Principal, @Param('name') name: string): Promise<void> {
    return this.allocation.deleteDimension(principal, name);
  }

  @Get('providers')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The declared providers and their aliases (System Admin)' })
  @ApiOkResponse({ type: ProvidersResponse })
  providers(@CurrentPrincipal() principal: Principal): Promise<ProvidersResponse> {
    return this.allocation.providers(principal.tenantId);
  }

  @Put('providers')
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Replace the declared providers (System Admin): each name and its aliases are one provider in every query',
    description: 'Names that differ only by case are one provider without any declaration; line items keep the names their files gave.',
  })
  @ApiOkResponse({ type: ProvidersResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `INVALID_PROVIDER`' })
  replaceProviders(@CurrentPrincipal() principal: Principal, @Body() body: ProvidersRequest): Promise<ProvidersResponse> {
    return this.allocation.replaceProviders(principal.tenantId, body);
  }

  @Get('splitRules')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The shared-cost split rules, in the order they run (System Admin)' })
  @ApiOkResponse({ type: SplitRulesResponse })
  splitRules(@CurrentPrincipal() principal: Principal): Promise<SplitRulesResponse> {
    return this.allocation.splitRules(principal.tenantId);
  }

  @Put('splitRules')
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Replace the split rules (the whole ordered list) (System Admin)',
    description:
      'Each source is split to the values of a dimension or an activated tag key, by proportion, evenly or by fixed percentages.',
  })
  @ApiOkResponse({ type: SplitRulesResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `INVALID_SPLIT_RULE`, `SPLIT_RULE_CYCLE`' })
  replaceSplitRules(@CurrentPrincipal() principal: Principal, @Body() body: SplitRulesRequest): Promise<SplitRulesResponse> {
    return this.allocation.replaceSplitRules(principal.tenantId, body);
  }

  @Get('showback')
  @HeavyRoute()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'A monthly showback statement per value of a dimension: direct cost, shared cost received, total (System Admin)',
    description: '`format=csv` answers one line per value; `format=focus` FOCUS column names with the allocation in `x_` columns.',
  })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: ShowbackResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `UNKNOWN_DIMENSION`, `INVALID_SPLIT_RULE`' })
  async showback(@CurrentPrincipal() principal: Principal, @Query() query: ShowbackQuery): Promise<ShowbackResponse | StreamableFile> {
    const statement = await this.showbacks.statement(principal.tenantId, query);
    if (query.format === 'csv' || query.format === 'focus') {
      const lines = query.format === 'csv' ? showbackCsv(statement) : showbackFocusCsv(statement);
      const name = `showback-${statement.period}${query.format === 'focus' ? '-focus' : ''}.csv`;
      return new StreamableFile(Readable.from(lines), { type: 'text/csv; charset=utf-8', disposition: `attachment; filename="${name}"` });
    }
    return statement;
  }

  @Get('dimensions/:name/versions')
  @SystemAdminOnly()
  @ApiParam({ name: 'name', description: 'The dimension name' })
  @ApiOperation({ summary: "A dimension's saved versions, newest first: who changed what and when (System Admin)" })
  @ApiOkResponse({ type: DimensionVersionListResponse })
  @ApiNotFoundResponse({ description: '`DIMENSION_NOT_FOUND`' })
  async versions(@CurrentPrincipal() principal: Principal, @Param('name') name: string): Promise<DimensionVersionListResponse> {
    return { items: await this.allocation.history(principal.tenantId, name) };
  }
}
