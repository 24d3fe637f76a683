import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { PERIOD_PATTERN } from '../../data-management/dto/deletion-request.dto';

export const REMEDIATION_TASKS = ['serviceCategory', 'location', 'currency'] as const;
export type RemediationTask = (typeof REMEDIATION_TASKS)[number];

export class RemediateRequest {
  @ApiProperty({ isArray: true, enum: REMEDIATION_TASKS, example: ['serviceCategory', 'location'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REMEDIATION_TASKS.length)
  @ArrayUnique()
  @IsIn(REMEDIATION_TASKS, { each: true })
  tasks: RemediationTask[];

  /**
   * Only line items of this provider
   * @example "aws"
   */
  @IsOptional()
  @IsSafeText(128)
  providerName?: string;

  /**
   * YYYYMM, inclusive
   * @example "202401"
   */
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodFrom must be YYYYMM' })
  periodFrom?: string;

  /**
   * YYYYMM, inclusive
   * @example "202412"
   */
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodTo must be YYYYMM' })
  periodTo?: string;
}

export class TaskResult {
  /** Line items the task selected */
  matched: number;

  /** Line items whose values changed */
  modified: number;

  /** currency: billing currencies left as they were because no exchange rate is configured */
  skippedCurrencies?: string[];
}

export class RemediationTasks {
  serviceCategory?: TaskResult;

  location?: TaskResult;

  currency?: TaskResult;
}

export class RemediateResponse {
  tasks: RemediationTasks;
}
