import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsSafeText, PageOf, PageQuery } from '@lib/http';
import { IsIn, IsOptional } from 'class-validator';
import { JOB_STATUSES, PROGRESS_UNITS } from '../schemas/job.schema';
import type { JobStatus, ProgressUnit } from '../schemas/job.schema';

export class ListJobsQuery extends PageQuery {
  @ApiPropertyOptional({ type: String, example: 'gpd.enrich' })
  @IsOptional()
  @IsSafeText(100)
  type?: string;

  @ApiPropertyOptional({ type: String, enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES)
  status?: JobStatus;
}

export class JobProgressDto {
  @ApiProperty({ type: Number, description: 'Units done so far' }) done: number;
  @ApiProperty({ type: Number, description: 'Units in all (0 until the job knows)' }) total: number;
  @ApiProperty({ type: Number, description: 'done / total, one decimal; 100 when the job succeeded' }) percent: number;
  @ApiProperty({
    type: String,
    enum: PROGRESS_UNITS,
    description:
      'What done and total count: `rows` (data deletion), `bytes` of the CSV files read (GPD enrichment: rows are not known before the end), ' +
      '`bytes` of the files read (FOCUS import, extension flow), `accounts` (account migration)',
  })
  unit: ProgressUnit;
  @ApiPropertyOptional({ type: Number, description: 'Rows read so far, when the unit is not rows' }) rows?: number;
}

export class JobDto {
  @ApiProperty({ type: String, format: 'uuid' }) jobId: string;
  @ApiProperty({ type: String, example: 'gpd.enrich' }) type: string;
  @ApiProperty({ type: String, enum: JOB_STATUSES }) status: JobStatus;
  @ApiProperty({ type: JobProgressDto }) progress: JobProgressDto;
  @ApiProperty({ type: Number, description: 'Deliveries so far, over every run' }) attempts: number;
  @ApiPropertyOptional({ type: String }) error?: string;
  @ApiPropertyOptional({ type: Object, description: 'What the job reports when it ends' }) result?: Record<string, unknown>;
  @ApiProperty({ type: Object }) payload: Record<string, unknown>;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) startedAt?: Date;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) finishedAt?: Date;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt: Date;
}

export class JobPage extends PageOf(JobDto) {}

export function toJobDto(job: Record<string, unknown>): JobDto {
  const { _id: _id, tenantId: _tenant, run: _run, terminateRequested: _flag, ...rest } = job;
  return rest as unknown as JobDto;
}
