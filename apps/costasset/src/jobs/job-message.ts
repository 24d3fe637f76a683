import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { TRACEPARENT_PATTERN, TRACESTATE_MAX_LENGTH } from '@lib/tracing';

/** What travels on the job queue: only ids; the job record is the truth. Validated on delivery. */
export class JobMessage {
  @IsString()
  @MaxLength(512)
  tenantId: string;

  @IsUUID()
  jobId: string;

  @IsInt()
  @Min(0)
  @Max(1_000_000)
  run: number;

  /**
   * The trace context of the request that submitted (or re-ran) the job, with tracing on: every
   * attempt's spans, on whichever instance, join that trace and link to it.
   */
  @IsOptional()
  @Matches(TRACEPARENT_PATTERN)
  traceparent?: string;

  @IsOptional()
  @IsString()
  @MaxLength(TRACESTATE_MAX_LENGTH)
  tracestate?: string;
}
