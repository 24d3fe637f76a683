import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { FilteredPageQuery } from './page.query';

export class ListAssetsQuery extends FilteredPageQuery {
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(200) providerName?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(200) billingAccountId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(200) assetAccountId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(500) resourceId?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(200) assetType?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(200) category?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(200) region?: string;
  @ApiPropertyOptional({ type: String }) @IsOptional() @IsString() @MaxLength(64) uploadRefId?: string;

  @ApiPropertyOptional({ type: String, example: '202410' })
  @IsOptional()
  @Matches(/^\d{4}(0[1-9]|1[0-2])$/, { message: 'period must be YYYYMM' })
  period?: string;
}
