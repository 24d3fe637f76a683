import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export const COST_DIMENSIONS = [
  'providerName',
  'billingAccountId',
  'billingAccountName',
  'assetAccountId',
  'category',
  'serviceName',
  'region',
  'chargeCategory',
  'billingCurrency',
] as const;
export type CostDimension = (typeof COST_DIMENSIONS)[number];

export const COST_METRICS = ['cost', 'billedCost', 'effectiveCost', 'listCost', 'allocatedCost'] as const;
export type CostMetric = (typeof COST_METRICS)[number];

export const COST_GRANULARITIES = ['month', 'day'] as const;
export type CostGranularity = (typeof COST_GRANULARITIES)[number];

export const MAX_GROUP_BY = 3;
export const DEFAULT_TOP = 10;
export const MAX_TOP = 50;

/** `tag:<group>:<key>`: the group never holds `:` or `/`, the key may hold `:`. */
export const TAG_GROUPING = /^tag:([^:/]{1,200}):(.{1,200})$/s;
/** `dimension:<name>`: a virtual dimension (docs/allocation.md). */
export const DIMENSION_GROUPING = /^dimension:([a-z0-9][a-z0-9_-]{0,62})$/;
const GROUPING = new RegExp(`^(${COST_DIMENSIONS.join('|')})$|${TAG_GROUPING.source}|${DIMENSION_GROUPING.source}`, 's');
/** YYYYMM (a period) or YYYY-MM-DD (a day); whether the day exists is checked with the range. */
const RANGE_BOUND = /^(\d{4}(0[1-9]|1[0-2])|\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]))$/;

/** `a,b` and repeated `groupBy=a&groupBy=b` both give `['a', 'b']`. */
function listOf(value: unknown): unknown {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value.flatMap((entry) => listOf(entry) as string[]);
  return value;
}

/** The query of `GET /api/costasset/v1/costs`; every parameter is optional. */
export class CostsQuery {
  /**
   *
   * @example "providerName,serviceName"
   */
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_GROUP_BY,
    description:
      `Up to ${MAX_GROUP_BY} groupings, comma-separated or repeated: ${COST_DIMENSIONS.join(', ')}, ` +
      'or at most one tag written `tag:<group>:<key>` ' +
      '(the first `:` after `tag:` ends the group; the key may hold `:`), or a virtual dimension written `dimension:<name>`. ' +
      'Without it: one series, the total.',
  })
  @IsOptional()
  @Transform(({ value }) => listOf(value))
  @IsArray()
  @ArrayMaxSize(MAX_GROUP_BY)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(GROUPING, {
    each: true,
    message: `each groupBy entry must be one of ${COST_DIMENSIONS.join(', ')}, tag:<group>:<key> or dimension:<name>`,
  })
  groupBy?: string[];

  /** An expression of the expression language (no `${}` placeholders); 400 INVALID_EXPRESSION with the position of an error */
  @ApiPropertyOptional({ example: 'providerName == "aws" && region != "us-east-1"' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  filter?: string;

  /**
   * First period (YYYYMM) or day (YYYY-MM-DD), inclusive; with `to`, in the same form
   * @example "202401"
   */
  @IsOptional()
  @Matches(RANGE_BOUND, { message: 'from must be YYYYMM or YYYY-MM-DD' })
  from?: string;

  /**
   * Last period (YYYYMM) or day (YYYY-MM-DD), inclusive
   * @example "202406"
   */
  @IsOptional()
  @Matches(RANGE_BOUND, { message: 'to must be YYYYMM or YYYY-MM-DD' })
  to?: string;

  /** Buckets by month (the line item period) or by UTC day of the charge period start */
  @ApiPropertyOptional({ enum: COST_GRANULARITIES, default: 'month' })
  @IsOptional()
  @IsIn(COST_GRANULARITIES)
  granularity?: CostGranularity;

  /**
   * `cost` is in the corporate currency; the others in the billing currency, but `allocatedCost`:
   * cost after the shared-cost split rules, in the corporate currency, by month
   */
  @ApiPropertyOptional({ enum: COST_METRICS, default: 'cost' })
  @IsOptional()
  @IsIn(COST_METRICS)
  metric?: CostMetric;

  /** The N series with the largest absolute total; the rest are summed into one `other` series */
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_TOP, default: DEFAULT_TOP })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_TOP)
  top?: number;

  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json' })
  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}
