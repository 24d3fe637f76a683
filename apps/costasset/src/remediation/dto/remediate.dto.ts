import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { PERIOD_PATTERN } from '../../data-management/dto/deletion-request.dto';

export const REMEDIATION_TASKS = ['serviceCategory', 'location', 'currency'] as const;
export type RemediationTask = (typeof REMEDIATION_TASKS)[number];

export class RemediateRequest {
  @ApiProperty({ enum: REMEDIATION_TASKS, isArray: true, example: ['serviceCategory', 'location'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REMEDIATION_TASKS.length)
  @ArrayUnique()
  @IsIn(REMEDIATION_TASKS, { each: true })
  tasks: RemediationTask[];

  @ApiPropertyOptional({ type: String, example: 'aws', description: 'Only line items of this provider' })
  @IsOptional()
  @IsSafeText(128)
  providerName?: string;

  @ApiPropertyOptional({ type: String, example: '202401', description: 'YYYYMM, inclusive' })
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodFrom must be YYYYMM' })
  periodFrom?: string;

  @ApiPropertyOptional({ type: String, example: '202412', description: 'YYYYMM, inclusive' })
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodTo must be YYYYMM' })
  periodTo?: string;
}

export class TaskResult {
  @ApiProperty({ type: Number, description: 'Line items the task selected' })
  matched: number;

  @ApiProperty({ type: Number, description: 'Line items whose values changed' })
  modified: number;

  @ApiPropertyOptional({
    type: [String],
    description: 'currency: billing currencies left as they were because no exchange rate is configured',
  })
  skippedCurrencies?: string[];
}

export class RemediationTasks {
  @ApiPropertyOptional({ type: TaskResult })
  serviceCategory?: TaskResult;

  @ApiPropertyOptional({ type: TaskResult })
  location?: TaskResult;

  @ApiPropertyOptional({ type: TaskResult })
  currency?: TaskResult;
}

export class RemediateResponse {
  @ApiProperty({ type: RemediationTasks })
  tasks: RemediationTasks;
}
