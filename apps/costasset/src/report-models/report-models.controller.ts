import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal } from '@lib/auth';
import { DEFAULT_PAGE_SIZE, PageQuery, HeavyRoute } from '@lib/http';
import { ExecutionQuery, ReportExecutionResponse, SavedReportOutputPage } from './dto/report-execution.dto';
import {
  CreateReportModelQuery,
  CreateReportModelRequest,
  PatchReportModelRequest,
  ReplaceReportModelQuery,
  ReplaceReportModelRequest,
  ReportModelPath,
  ReportModelResponse,
} from './dto/report-model.dto';
import { ReportModelsService } from './report-models.service';

@ApiTags('report models')
@Controller('api/costasset/v1/reportModels')
export class ReportModelsController {
  constructor(private readonly reports: ReportModelsService) {}

  @Get()
  @AnyMember()
  @ApiOperation({ summary: 'Report models the caller can see (public ones, its own, all for a System Admin)' })
  @ApiOkResponse({ type: [ReportModelResponse] })
  list(@CurrentPrincipal() principal: Principal): Promise<ReportModelResponse[]> {
    return this.reports.list(principal);
  }

  @Get(':reportModelID/execution')
  @AnyMember()
  @HeavyRoute()
  @ApiOperation({ summary: "Runs the model: expression AND vtags AND the caller's visibility, aggregated in the database" })
  @ApiOkResponse({ type: ReportExecutionResponse })
  @ApiBadRequestResponse({
    description: '`INVALID_TEMPLATE_PARAMS`, `INVALID_EXPRESSION` (e.g. a missing placeholder value), `UNKNOWN_VISIBILITY_TAG`',
  })
  execute(
    @CurrentPrincipal() principal: Principal,
    @Param() path: ReportModelPath,
    @Query() query: ExecutionQuery,
  ): Promise<ReportExecutionResponse> {
    return this.reports.execute(principal, path.reportModelID, query);
  }

  @Get(':reportModelID/outputs')
  @AnyMember()
  @ApiOperation({ summary: 'Saved outputs of a model with saveOutput (newest last), cursor-paginated' })
  @ApiOkResponse({ type: SavedReportOutputPage })
  outputs(
    @CurrentPrincipal() principal: Principal,
    @Param() path: ReportModelPath,
    @Query() page: PageQuery,
  ): Promise<SavedReportOutputPage> {
    return this.reports.savedOutputs(principal, path.reportModelID, page.limit ?? DEFAULT_PAGE_SIZE, page.cursor);
  }

  @Get(':reportModelID')
  @AnyMember()
  @ApiOperation({ summary: 'One report model' })
  @ApiOkResponse({ type: ReportModelResponse })
  @ApiNotFoundResponse({ description: '`REPORT_MODEL_NOT_FOUND`' })
  get(@CurrentPrincipal() principal: Principal, @Param() path: ReportModelPath): Promise<ReportModelResponse> {
    return this.reports.get(principal, path.reportModelID);
  }

  @Post(':reportModelID')
  @AnyMember()
  @HttpCode(200)
  @ApiOperation({ summary: 'Creates a report model (200, as the interface gives; 409 `REPORT_MODEL_EXISTS`)' })
  @ApiOkResponse({ type: ReportModelResponse })
  create(
    @CurrentPrincipal() principal: Principal,
    @Param() path: ReportModelPath,
    @Query() query: CreateReportModelQuery,
    @Body() body: CreateReportModelRequest,
  ): Promise<ReportModelResponse> {
    return this.reports.create(principal, path.reportModelID, query, body);
  }

  @Put(':reportModelID')
  @AnyMember()
  @ApiOperation({ summary: 'Replaces the model (its creator or a System Admin)' })
  @ApiOkResponse({ type: ReportModelResponse })
  replace(
    @CurrentPrincipal() principal: Principal,
    @Param() path: ReportModelPath,
    @Query() query: ReplaceReportModelQuery,
    @Body() body: ReplaceReportModelRequest,
  ): Promise<ReportModelResponse> {
    return this.reports.replace(principal, path.reportModelID, query, body);
  }

  @Patch(':reportModelID')
  @AnyMember()
  @ApiOperation({ summary: 'Replaces the given fields of the model (its creator or a System Admin)' })
  @ApiOkResponse({ type: ReportModelResponse })
  patch(
    @CurrentPrincipal() principal: Principal,
    @Param() path: ReportModelPath,
    @Query() query: ReplaceReportModelQuery,
    @Body() body: PatchReportModelRequest,
  ): Promise<ReportModelResponse> {
    return this.reports.patch(principal, path.reportModelID, query, body);
  }

  @Delete(':reportModelID')
  @AnyMember()
  @ApiOperation({ summary: 'Deletes the model and its saved outputs (200, as the interface gives)' })
  remove(@CurrentPrincipal() principal: Principal, @Param() path: ReportModelPath) {
    return this.reports.remove(principal, path.reportModelID);
  }
}
