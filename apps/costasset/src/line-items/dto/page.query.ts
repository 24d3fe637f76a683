import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsSafeText, PageQuery } from '@lib/http';

/** Pagination plus an optional expression (the language of resource groups, without placeholders). */
export class FilteredPageQuery extends PageQuery {
  /**
   * Expression over providerName, billingAccountId, billingAccountName, assetAccountId, category, serviceName, region, period and tag(...),
   * ANDed with the other filters; 400 INVALID_EXPRESSION with the position of an error
   */
  @ApiPropertyOptional({ example: 'providerName == "aws" && period == "202410"' })
  @IsOptional()
  @IsSafeText(4096, { multiline: true })
  expr?: string;
}
