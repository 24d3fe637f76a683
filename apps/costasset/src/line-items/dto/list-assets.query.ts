import { IsOptional, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { FilteredPageQuery } from './page.query';

export class ListAssetsQuery extends FilteredPageQuery {
  @IsOptional() @IsSafeText(200) providerName?: string;
  @IsOptional() @IsSafeText(200) billingAccountId?: string;
  @IsOptional() @IsSafeText(200) assetAccountId?: string;
  @IsOptional() @IsSafeText(500) resourceId?: string;
  @IsOptional() @IsSafeText(200) assetType?: string;
  @IsOptional() @IsSafeText(200) category?: string;
  @IsOptional() @IsSafeText(200) region?: string;
  @IsOptional() @IsSafeText(64) uploadRefId?: string;

  /**
   *
   * @example "202410"
   */
  @IsOptional()
  @Matches(/^\d{4}(0[1-9]|1[0-2])$/, { message: 'period must be YYYYMM' })
  period?: string;
}
