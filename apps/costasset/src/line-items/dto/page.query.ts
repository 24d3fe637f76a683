import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Cursor pagination shared by the list endpoints. */
export class PageQuery {
  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ type: String, description: 'The `nextCursor` of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  cursor?: string;
}

/** Pagination plus an optional expression (the language of resource groups, without placeholders). */
export class FilteredPageQuery extends PageQuery {
  @ApiPropertyOptional({ type: String, description: "Expression over providerName, billingAccountId, billingAccountName, assetAccountId, category, serviceName, region, period and tag(...), ANDed with the other filters; 400 INVALID_EXPRESSION with the position of an error", example: 'providerName == "aws" && period == "202410"' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  expr?: string;
}
