import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsUUID } from 'class-validator';
import { IsSafeText } from '@lib/http';

export class IngestionRequest {
  @ApiPropertyOptional({ type: [String], description: 'Only uploads of these providers (case-insensitive); all when absent' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsSafeText(128, { each: true })
  providers?: string[];
}

export class JobReference {
  @ApiPropertyOptional({ description: 'A specific job; all matching jobs of the tenant when absent' })
  @IsOptional()
  @IsUUID('all')
  jobId?: string;
}

export class IngestedUpload {
  @ApiProperty()
  GPDUploadRefId: string;

  @ApiProperty()
  jobId: string;
}

export class SkippedUpload {
  @ApiProperty()
  GPDUploadRefId: string;

  @ApiProperty({ description: 'Why it was not started, e.g. GPD_FILE_NOT_READY' })
  code: string;

  @ApiProperty()
  reason: string;
}

export class IngestionStarted {
  @ApiProperty({ enum: ['started', 'nothing-to-do'] })
  status: 'started' | 'nothing-to-do';

  @ApiProperty({ type: [IngestedUpload] })
  jobs: IngestedUpload[];

  @ApiProperty({ type: [SkippedUpload] })
  skipped: SkippedUpload[];
}

export class TerminatedJobs {
  @ApiProperty({ type: [String] })
  terminated: string[];
}
