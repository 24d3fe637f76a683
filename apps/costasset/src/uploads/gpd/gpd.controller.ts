import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AnyMember, CostDataManager, CurrentPrincipal, Principal } from '@lib/auth';
import { DEFAULT_PAGE_SIZE } from '@lib/http';
import {
  CleanupDone,
  CleanupRequest,
  EnrichRequest,
  EnrichStarted,
  ListUploadsQuery,
  ProviderQuery,
  RetryAccepted,
  RetryRequest,
  SubmitUploadQuery,
  UploadRecordDto,
  UploadSubmitted,
} from './dto/gpd.dto';
import { GpdService } from './gpd.service';
import { GPD_FORMAT_DOC } from '../../format-docs';

@ApiTags('gpd')
@Controller('api/costasset/v1/gpd')
export class GpdController {
  constructor(private readonly gpd: GpdService) {}

  @Get()
  @AnyMember()
  @ApiOperation({
    summary: 'GPD uploads of a provider, with status and row counts, newest first',
    description:
      'A list, as the interface defines it, of at most `limit` uploads (default 100, at most 1000). When there are more, ' +
      'the `X-Next-Cursor` header (and a `Link: <…>; rel="next"` header) gives the `cursor` of the next page.',
  })
  @ApiOkResponse({
    type: [UploadRecordDto],
    headers: { 'X-Next-Cursor': { description: 'Present when more uploads follow: pass it as `cursor`', schema: { type: 'string' } } },
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListUploadsQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UploadRecordDto[]> {
    const page = await this.gpd.list(principal, query.providername, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    if (page.nextCursor) {
      const next = new URLSearchParams({
        providername: query.providername,
        cursor: page.nextCursor,
        ...(query.limit ? { limit: String(query.limit) } : {}),
      });
      response.setHeader('X-Next-Cursor', page.nextCursor);
      response.setHeader('Link', `<${request.baseUrl}${request.path}?${next.toString()}>; rel="next"`);
    }
    return page.items;
  }

  @Post()
  @CostDataManager()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Submits a GPD upload: answers a pre-signed PUT URL for the zip',
    description:
      'PUT the zip to `uploadUrl` (no token; straight to the object store) before `expiresAt`, then POST /v1/gpd/enrich. ' +
      'With `sizeBytes`, the URL accepts a body of exactly that length only, and enrichment refuses a stored file of another size. ' +
      GPD_FORMAT_DOC,
  })
  @ApiAcceptedResponse({ type: UploadSubmitted })
  @ApiPayloadTooLargeResponse({ description: 'GPD_FILE_TOO_LARGE: `sizeBytes` is over GPD_MAX_FILE_BYTES' })
  submit(@CurrentPrincipal() principal: Principal, @Query() query: SubmitUploadQuery): Promise<UploadSubmitted> {
    return this.gpd.submit(principal, query.providername, query.fileName, query.sizeBytes);
  }

  @Post('enrich')
  @CostDataManager()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Starts one enrichment job per upload',
    description:
      'Row errors are reported, structural errors fail the file: a bad row (date, decimal, currency without a rate, ' +
      'period outside its folder, broken Tags) is rejected and listed with file, line and reason (first 100), ' +
      'the other rows are written; a malformed archive (layout, metadata, required columns, unreadable CSV) fails the job with ' +
      'nothing written. `cost` is BilledCost converted into the corporate currency. Re-enriching replaces the rows of the upload. ' +
      GPD_FORMAT_DOC,
  })
  @ApiOkResponse({ type: EnrichStarted })
  @ApiBadRequestResponse({
    description:
      'GPD_FILE_NOT_READY: the file is not in the object store yet; GPD_FILE_SIZE_MISMATCH: ' +
      'the stored file is not the size declared at submission; GPD_PROVIDER_MISMATCH',
  })
  @ApiNotFoundResponse({ description: 'GPD_UPLOAD_NOT_FOUND' })
  @ApiPayloadTooLargeResponse({ description: 'GPD_FILE_TOO_LARGE' })
  enrich(@CurrentPrincipal() principal: Principal, @Body() body: EnrichRequest): Promise<EnrichStarted> {
    return this.gpd.import(principal.tenantId, body, principal);
  }

  @Post('retry')
  @CostDataManager()
  @HttpCode(200)
  @ApiOperation({ summary: 'Runs a failed or terminated enrichment job again' })
  @ApiOkResponse({ type: RetryAccepted })
  @ApiBadRequestResponse({ description: 'INVALID_JOB_ID' })
  retry(@CurrentPrincipal() principal: Principal, @Body() body: RetryRequest): Promise<RetryAccepted> {
    return this.gpd.retry(principal.tenantId, body.jobId, principal);
  }

  @Post('cleanup')
  @CostDataManager()
  @HttpCode(200)
  @ApiOperation({ summary: 'Removes the uploaded file and every row enriched from it' })
  @ApiOkResponse({ type: CleanupDone })
  @ApiNotFoundResponse({ description: 'GPD_UPLOAD_NOT_FOUND' })
  cleanup(@CurrentPrincipal() principal: Principal, @Query() query: ProviderQuery, @Body() body: CleanupRequest): Promise<CleanupDone> {
    return this.gpd.cleanup(principal, query.providername, body.GPDUploadRefId);
  }
}
