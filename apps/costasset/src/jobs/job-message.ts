import { IsInt, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

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
}
