import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsSafeText, PageOf, RequiredNested } from '@lib/http';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsOptional,
  Matches,
} from 'class-validator';
import { DELETION_STATUSES, DeletionStatus } from '../schemas/deletion-request.schema';
import { RowsRemovedDto } from '../../line-items/dto/rows-removed.dto';

export const PERIOD_PATTERN = /^\d{4}(0[1-9]|1[0-2])$/;

export class DeletionFiltersDto {
  @ApiPropertyOptional({ type: String, example: 'aws' })
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

  @ApiPropertyOptional({ type: String, example: '202401', description: 'YYYYMM, inclusive' })
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodFrom must be YYYYMM' })
  periodFrom?: string;

  @ApiPropertyOptional({ type: String, example: '202406', description: 'YYYYMM, inclusive' })
  @IsOptional()
  @Matches(PERIOD_PATTERN, { message: 'periodTo must be YYYYMM' })
  periodTo?: string;
}

export class CreateDeletionRequestDto {
  @ApiProperty({ type: DeletionFiltersDto, description: 'At least one filter; all given filters must match (AND)' })
  @RequiredNested(() => DeletionFiltersDto)
  filters: DeletionFiltersDto;

  @ApiPropertyOptional({ type: String, example: 'Account closed' })
  @IsOptional()
  @IsSafeText(1000, { multiline: true })
  reason?: string;
}

export class DeletionRequestResponse {
  @ApiProperty({ type: String })
  id: string;

  @ApiProperty({ enum: DELETION_STATUSES })
  status: DeletionStatus;

  @ApiProperty({ type: DeletionFiltersDto })
  filters: DeletionFiltersDto;

  @ApiPropertyOptional({ type: String })
  reason?: string;

  @ApiProperty({ type: String })
  requestedBy: string;

  @ApiPropertyOptional({ type: String, description: 'The job doing the deletion (GET /api/costasset/v1/jobs/{jobId})' })
  jobId?: string;

  @ApiProperty({ type: Number, description: 'Rows removed so far, all collections together' })
  rowsRemoved: number;

  @ApiProperty({ type: RowsRemovedDto })
  removed: RowsRemovedDto;

  @ApiPropertyOptional({ type: String })
  error?: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'When the deletion stopped (completed, cancelled and stopped, or failed)',
  })
  finishedAt?: string;
}

export class DeletionRequestPage extends PageOf(DeletionRequestResponse) {}

export class BillingAccountSummary {
  @ApiProperty({ type: String })
  providerName: string;

  @ApiProperty({ type: String })
  billingAccountId: string;

  @ApiPropertyOptional({ type: String })
  billingAccountName?: string;

  @ApiProperty({ type: Number, description: 'Cost line items of the account' })
  rows: number;

  @ApiProperty({ type: String, description: 'Earliest period (YYYYMM)' })
  periodFrom: string;

  @ApiProperty({ type: String, description: 'Latest period (YYYYMM)' })
  periodTo: string;
}

export class FilterAccount {
  @ApiProperty({ type: String })
  providerName: string;

  @ApiProperty({ type: String })
  billingAccountId: string;

  @ApiPropertyOptional({ type: String })
  billingAccountName?: string;
}

export class DeletionFilterValues {
  @ApiProperty({ type: [String] })
  providers: string[];

  @ApiProperty({ type: [FilterAccount] })
  accounts: FilterAccount[];

  @ApiProperty({ type: [String], description: 'Periods holding data, newest first' })
  periods: string[];
}
