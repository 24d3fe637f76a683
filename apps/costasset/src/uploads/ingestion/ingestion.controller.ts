import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { FlowRequest, FlowStarted } from '../../extensions/dto/extension-files.dto';
import { IngestionRequest, IngestionStarted, JobReference, TerminatedJobs } from './dto/ingestion.dto';
import { IngestionService } from './ingestion.service';

@ApiTags('ingestion')
@SystemAdminOnly()
@Controller('api/costasset')
export class IngestionController {
  constructor(private readonly ingestion: IngestionService) {}

  @Post('v1/enrichmentController/ingestion')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Enriches every uploaded file not enriched yet (failed ones again): ' +
      'one job per upload; files not in the store yet are skipped with the reason',
  })
  @ApiOkResponse({ type: IngestionStarted })
  ingest(@CurrentPrincipal() principal: Principal, @Body() body: IngestionRequest): Promise<IngestionStarted> {
    return this.ingestion.ingest(principal, body.providers);
  }

  @Post('v1/enrichmentController/ingestion/retry')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Retries a failed ingestion (enrichment) job, or all failed ones; 400 INVALID_JOB_ID for a job that is not a failed one',
  })
  retry(@CurrentPrincipal() principal: Principal, @Body() body: JobReference): Promise<{ status: 'accepted'; jobs: string[] }> {
    return this.ingestion.retry(principal, body.jobId);
  }

  @Post('v1/enrichmentController/jobs/terminate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Terminates the given ingestion job, or every queued or running one (rows written so far are removed)' })
  @ApiOkResponse({ type: TerminatedJobs })
  terminate(@CurrentPrincipal() principal: Principal, @Body() body: JobReference): Promise<TerminatedJobs> {
    return this.ingestion.terminate(principal.tenantId, body.jobId);
  }

  @Post('v2/enrichmentController/ingestion')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Consolidated ingestion: transforms the raw data of a provider with its extension ' +
      'into a GPD file and enriches it (the job result names the enrichment job)',
  })
  @ApiOkResponse({ type: FlowStarted })
  consolidated(@CurrentPrincipal() principal: Principal, @Body() body: FlowRequest): Promise<FlowStarted> {
    return this.ingestion.consolidated(principal, body.vars.providerCode, body.vars.rawFile);
  }
}
