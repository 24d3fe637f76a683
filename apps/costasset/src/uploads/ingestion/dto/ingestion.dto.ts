import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsUUID } from 'class-validator';
import { IsSafeText } from '@lib/http';

export class IngestionRequest {
  /** Only uploads of these providers (case-insensitive); all when absent */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsSafeText(128, { each: true })
  providers?: string[];
}

export class JobReference {
  /** A specific job; all matching jobs of the tenant when absent */
  @IsOptional()
  @IsUUID('all')
  jobId?: string;
}

export class IngestedUpload {
  GPDUploadRefId: string;

  jobId: string;
}

export class SkippedUpload {
  GPDUploadRefId: string;

  /** Why it was not started, e.g. GPD_FILE_NOT_READY */
  code: string;

  reason: string;
}

export class IngestionStarted {
  @ApiProperty({ enum: ['started', 'nothing-to-do'] })
  status: 'started' | 'nothing-to-do';

  jobs: IngestedUpload[];

  skipped: SkippedUpload[];
}

export class TerminatedJobs {
  terminated: string[];
}
