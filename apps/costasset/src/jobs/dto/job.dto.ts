import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../../line-items/dto/page.query';
import { JOB_STATUSES } from '../schemas/job.schema';
import type { JobStatus } from '../schemas/job.schema';

export class ListJobsQuery extends PageQuery {
  @ApiPropertyOptional({ type: String, example: 'gpd.enrich' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  type?: string;

  @ApiPropertyOptional({ type: String, enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES)
  status?: JobStatus;
}

export class JobProgressDto {
  @ApiProperty({ type: Number }) done: number;
  @ApiProperty({ type: Number }) total: number;
  @ApiProperty({ type: Number }) percent: number;
  @ApiPropertyOptional({ type: String, description: 'What done and total count: `bytes`, `rows`, `files`', example: 'rows' }) unit?: string;
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

export class JobPage {
  @ApiProperty({ type: [JobDto] }) items: JobDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}

export function toJobDto(job: Record<string, unknown>): JobDto {
  const { _id: _id, tenantId: _tenant, run: _run, terminateRequested: _flag, ...rest } = job;
  return rest as unknown as JobDto;
}
