import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal } from '@lib/auth';
import { DEFAULT_PAGE_SIZE } from '@lib/http';
import { Problems } from '@lib/core';
import { JobDto, JobPage, ListJobsQuery, toJobDto } from './dto/job.dto';
import { JobsService } from './jobs.service';

const notFound = () => Problems.notFound('JOB_NOT_FOUND', 'No such job');
const uuid = new ParseUUIDPipe({ exceptionFactory: notFound });

@ApiTags('jobs')
@Controller('api/costasset/v1/jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Get()
  @AnyMember()
  @ApiOperation({
    summary: 'Jobs of the tenant, newest last, filtered by type and status, in pages (cursor)',
    description: 'A System Admin sees every job; anyone else the jobs it asked for.',
  })
  @ApiOkResponse({ type: JobPage })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListJobsQuery): Promise<JobPage> {
    const page = await this.jobs.page(
      principal,
      { type: query.type, status: query.status },
      query.limit ?? DEFAULT_PAGE_SIZE,
      query.cursor,
    );
    return { items: page.items.map((job) => toJobDto(job as never)), nextCursor: page.nextCursor };
  }

  @Get(':jobId')
  @AnyMember()
  @ApiOperation({ summary: 'One job: status, progress, attempts, error and result' })
  @ApiOkResponse({ type: JobDto })
  @ApiNotFoundResponse({
    description: 'JOB_NOT_FOUND, also for a job another user asked for (only its submitter and System Admins see a job)',
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('jobId', uuid) jobId: string): Promise<JobDto> {
    const job = await this.jobs.get(principal.tenantId, jobId);
    if (!job || !this.jobs.mayAccess(principal, job)) throw notFound();
    return toJobDto(job as never);
  }

  @Post(':jobId/terminate')
  @AnyMember()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Terminates a queued job at once, or a running one at its next batch',
    description: 'Terminating a data-deletion job cancels its deletion request.',
  })
  @ApiOkResponse({ type: JobDto })
  @ApiNotFoundResponse({ description: 'JOB_NOT_FOUND, also for a job another user asked for' })
  async terminate(@CurrentPrincipal() principal: Principal, @Param('jobId', uuid) jobId: string): Promise<JobDto> {
    const existing = await this.jobs.get(principal.tenantId, jobId);
    if (!existing || !this.jobs.mayAccess(principal, existing)) throw notFound();
    const job = await this.jobs.terminate(principal.tenantId, jobId);
    if (job) return toJobDto(job as never);
    const status = (await this.jobs.get(principal.tenantId, jobId))?.status ?? existing.status;
    throw Problems.badRequest('JOB_NOT_RUNNING', `The job is ${status}; only queued or running jobs can be terminated`);
  }
}
