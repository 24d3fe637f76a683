import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsSafeText, PageOf, PageQuery } from '@lib/http';
import { IsIn, IsOptional } from 'class-validator';
import { JOB_STATUSES, PROGRESS_UNITS } from '../schemas/job.schema';
import type { JobStatus, ProgressUnit } from '../schemas/job.schema';

export class ListJobsQuery extends PageQuery {
  /**
   *
   * @example "gpd.enrich"
   */
  @IsOptional()
  @IsSafeText(100)
  type?: string;

  @ApiPropertyOptional({ enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES)
  status?: JobStatus;
}

export class JobProgressDto {
  /** Units done so far */
  done: number;
  /** Units in all (0 until the job knows) */
  total: number;
  /** done / total, one decimal; 100 when the job succeeded */
  percent: number;
  /**
   * What done and total count: `rows` (data deletion), `bytes` of the CSV files read (GPD enrichment: rows are not known before the end),
   * `bytes` of the files read (FOCUS import, extension flow), `accounts` (account migration), `series` (anomaly detection)
   */
  @ApiProperty({ enum: PROGRESS_UNITS })
  unit: ProgressUnit;
  /** Rows read so far, when the unit is not rows */
  rows?: number;
}

export class JobDto {
  @ApiProperty({ format: 'uuid' }) jobId: string;
  /**
   *
   * @example "gpd.enrich"
   */
  type: string;
  @ApiProperty({ enum: JOB_STATUSES }) status: JobStatus;
  progress: JobProgressDto;
  /** Deliveries so far, over every run */
  attempts: number;
  error?: string;
  /** What the job reports when it ends */
  result?: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The job this one is a part of (a large import's part, imported by whichever instance takes it) */
  @ApiPropertyOptional({ format: 'uuid' }) parentJobId?: string;
  startedAt?: Date;
  finishedAt?: Date;
  createdAt: Date;
  updatedAt: Date;
}

export class JobPage extends PageOf(JobDto) {}

export function toJobDto(job: Record<string, unknown>): JobDto {
  const {
    _id: _id,
    tenantId: _tenant,
    run: _run,
    terminateRequested: _flag,
    parentRun: _parentRun,
    childIndex: _childIndex,
    children: _children,
    waiting: _waiting,
    handoff: _handoff,
    ...rest
  } = job;
  return rest as unknown as JobDto;
}
