import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { FilteredPageQuery } from './page.query';

export class ListAssetsQuery extends FilteredPageQuery {
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) providerName?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) billingAccountId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) assetAccountId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(500) resourceId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) assetType?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) category?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(200) region?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsSafeText(64) uploadRefId?: string;

  @ApiPropertyOptional({ type: String, example: '202410' })
  @IsOptional()
  @Matches(/^\d{4}(0[1-9]|1[0-2])$/, { message: 'period must be YYYYMM' })
  period?: string;
}
