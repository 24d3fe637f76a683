import { IsOptional, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { FilteredPageQuery } from './page.query';

/** Equality filters on the stored fields; every one is optional and they combine with AND. */
export class ListCostLineItemsQuery extends FilteredPageQuery {
  @IsOptional() @IsSafeText(200) providerName?: string;
  @IsOptional() @IsSafeText(200) billingAccountId?: string;
  @IsOptional() @IsSafeText(200) billingAccountName?: string;
  @IsOptional() @IsSafeText(200) assetAccountId?: string;
  @IsOptional() @IsSafeText(500) resourceId?: string;
  @IsOptional() @IsSafeText(200) assetType?: string;
  /** Service category */
  @IsOptional() @IsSafeText(200) category?: string;
  @IsOptional() @IsSafeText(200) serviceName?: string;
  /** Provider region code (RegionId) */
  @IsOptional()
  @IsSafeText(200)
  region?: string;
  @IsOptional() @IsSafeText(200) country?: string;
  @IsOptional() @IsSafeText(200) chargeCategory?: string;
  /** FOCUS ServiceCategory as uploaded */
  @IsOptional() @IsSafeText(200) serviceCategory?: string;
  @IsOptional() @IsSafeText(200) invoiceId?: string;
  @IsOptional() @IsSafeText(8) billingCurrency?: string;
  @IsOptional() @IsSafeText(64) uploadRefId?: string;

  /**
   * Month of the charge period
   * @example "202410"
   */
  @IsOptional()
  @Matches(/^\d{4}(0[1-9]|1[0-2])$/, { message: 'period must be YYYYMM' })
  period?: string;

  /**
   * Month of the billing period (FOCUS BillingPeriodStart)
   * @example "202411"
   */
  @IsOptional()
  @Matches(/^\d{4}(0[1-9]|1[0-2])$/, { message: 'billingPeriod must be YYYYMM' })
  billingPeriod?: string;
}
