import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsSafeText, PageOf, RequiredNested } from '@lib/http';
import { ArrayMaxSize, ArrayUnique, IsArray, IsOptional, Matches } from 'class-validator';
import { DELETION_STATUSES, DeletionStatus } from '../schemas/deletion-request.schema';
import { RowsRemovedDto } from '../../line-items/dto/rows-removed.dto';

export const PERIOD_PATTERN = /^\d{4}(0[1-9]|1[0-2])$/;

export class DeletionFiltersDto {
  /**
   *
   * @example "aws"
   */
  @IsOptional()
  @IsSafeText(128)
  providerName?: string;

  @ApiPropertyOptional({ type: [String], example: ['123456789012'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @ArrayUnique()
  @IsSafeText(256, { each: true })
  billingAccountIds?: string[];

  /**
   * YYYYMM, inclusive
   * @example "202401"
   */
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodFrom must be YYYYMM' })
  periodFrom?: string;

  /**
   * YYYYMM, inclusive
   * @example "202406"
   */
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodTo must be YYYYMM' })
  periodTo?: string;
}

export class CreateDeletionRequestDto {
  /** At least one filter; all given filters must match (AND) */
  @RequiredNested(() => DeletionFiltersDto)
  filters: DeletionFiltersDto;

  /**
   *
   * @example "Account closed"
   */
  @IsOptional()
  @IsSafeText(1000, { multiline: true })
  reason?: string;
}

export class DeletionRequestResponse {
  id: string;

  @ApiProperty({ enum: DELETION_STATUSES })
  status: DeletionStatus;

  filters: DeletionFiltersDto;

  reason?: string;

  requestedBy: string;

  /** The job doing the deletion (GET /api/costasset/v1/jobs/{jobId}) */
  jobId?: string;

  /** Rows removed so far, all collections together */
  rowsRemoved: number;

  removed: RowsRemovedDto;

  error?: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  /** When the deletion stopped (completed, cancelled and stopped, or failed) */
  @ApiPropertyOptional({ format: 'date-time' })
  finishedAt?: string;
}

export class DeletionRequestPage extends PageOf(DeletionRequestResponse) {}

export class BillingAccountSummary {
  providerName: string;

  billingAccountId: string;

  billingAccountName?: string;

  /** Cost line items of the account */
  rows: number;

  /** Earliest period (YYYYMM) */
  periodFrom: string;

  /** Latest period (YYYYMM) */
  periodTo: string;
}

export class FilterAccount {
  providerName: string;

  billingAccountId: string;

  billingAccountName?: string;
}

export class DeletionFilterValues {
  providers: string[];

  accounts: FilterAccount[];

  /** Periods holding data, newest first */
  periods: string[];
}
