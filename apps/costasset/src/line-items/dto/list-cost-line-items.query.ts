import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { FilteredPageQuery } from './page.query';

/** Equality filters on the stored fields; every one is optional and they combine with AND. */
export class ListCostLineItemsQuery extends FilteredPageQuery {
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) providerName?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) billingAccountId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) billingAccountName?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) assetAccountId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(500) resourceId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) assetType?: string;
  @ApiPropertyOptional({ type: String, description: 'Service category' }) @IsOptional() @IsSafeText(200) category?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) serviceName?: string;
  @ApiPropertyOptional({ type: String, description: 'Provider region code (RegionId)' })
  @IsOptional()
  @IsSafeText(200)
  region?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) country?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) chargeCategory?: string;
  @ApiPropertyOptional({ type: String, description: 'FOCUS ServiceCategory as uploaded' }) @IsOptional() @IsSafeText(200) serviceCategory?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) invoiceId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(8) billingCurrency?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(64) uploadRefId?: string;

  @ApiPropertyOptional({ type: String, example: '202410', description: 'Month of the charge period' })
  @IsOptional()
  @Matches(/^\d{4}(0[1-9]|1[0-2])$/, { message: 'period must be YYYYMM' })
  period?: string;

  @ApiPropertyOptional({ type: String, example: '202411', description: 'Month of the billing period (FOCUS BillingPeriodStart)' })
  @IsOptional()
  @Matches(/^\d{4}(0[1-9]|1[0-2])$/, { message: 'billingPeriod must be YYYYMM' })
  billingPeriod?: string;
}
