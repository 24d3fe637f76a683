import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { HeavyRoute } from '@lib/http';
import { AnyMember, CurrentPrincipal, Principal } from '@lib/auth';
import { costsCsvLines, csvFileName } from './costs-csv';
import { CostsService } from './costs.service';
import { CostsQuery } from './dto/costs.query';
import { CostsResponse } from './dto/costs.response';
import { CostsForecastQuery, CostsForecastResponse } from './dto/costs-forecast.dto';

@ApiTags('cost explorer')
@Controller('api/costasset/v1')
export class CostsController {
  constructor(private readonly costs: CostsService) {}

  @Get('costs/forecast')
  @AnyMember()
  @HeavyRoute()
  @ApiOperation({
    summary: 'Month-end and the next three months per series, each with an 80% prediction interval, within the caller’s visibility',
    description: 'Takes the explorer’s groupBy, filter, metric and top. See the repository’s docs/cost-explorer.md, Forecasts.',
  })
  @ApiOkResponse({ type: CostsForecastResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `INVALID_EXPRESSION` (with `position`)' })
  forecast(@CurrentPrincipal() principal: Principal, @Query() query: CostsForecastQuery): Promise<CostsForecastResponse> {
    return this.costs.forecast(principal, query);
  }

  @Get('costs')
  @AnyMember()
  @HeavyRoute()
  @ApiOperation({
    summary: 'Costs grouped by up to three dimensions or a tag, per month or day, with the caller’s visibility (the cost explorer)',
    description: 'See the repository’s docs/cost-explorer.md. `format=csv` answers the long CSV form as a download.',
  })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: CostsResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `INVALID_EXPRESSION` (with `position`), `COSTS_RANGE_INVALID`' })
  async explore(@CurrentPrincipal() principal: Principal, @Query() query: CostsQuery): Promise<CostsResponse | StreamableFile> {
    const answer = await this.costs.costs(principal, query);
    if (query.format === 'csv') {
      return new StreamableFile(Readable.from(costsCsvLines(answer)), {
        type: 'text/csv; charset=utf-8',
        disposition: `attachment; filename="${csvFileName(answer)}"`,
      });
    }
    return { ...answer, series: answer.series.map(({ counts: _counts, ...series }) => series) };
  }
}
