import { ApiProperty } from '@nestjs/swagger';
import { COST_GRANULARITIES, COST_METRICS } from './costs.query';

export class CostSeriesDto {
  /** The value of each grouping (tags as `tag:<group>:<key>`); `null` when the line items have none, and in the `other` series */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string', nullable: true }, example: { providerName: 'aws' } })
  key: Record<string, string | null>;

  /** The sum of every series beyond `top`; always last */
  other?: boolean;

  /** Sum of `values`, not rounded */
  total: number;

  /** One amount per bucket, aligned with `buckets`, not rounded */
  values: number[];

  /** How many line items the series sums */
  lineItems: number;
}

export class CostsResponse {
  /** Where the answer came from; the answer is identical either way */
  @ApiProperty({ enum: ['line-items', 'rollup'] })
  source: 'line-items' | 'rollup';

  /** Which rollups answered: the monthly ones unless the query reads days (a day range or daily buckets); null from the line items */
  @ApiProperty({ enum: ['day', 'month'], nullable: true })
  rollupLevel: 'day' | 'month' | null;

  @ApiProperty({ enum: COST_METRICS })
  metric: (typeof COST_METRICS)[number];

  /**
   * The corporate currency for `cost`; the billing currency otherwise, or `null` when the rows hold several (then `billingCurrency` is part
   * of each key)
   * @example "USD"
   */
  @ApiProperty({ type: String, nullable: true })
  currency: string | null;

  @ApiProperty({ enum: COST_GRANULARITIES })
  granularity: (typeof COST_GRANULARITIES)[number];

  /**
   *
   * @example "202401"
   */
  from: string;

  /**
   *
   * @example "202406"
   */
  to: string;

  /** The groupings of each key, in order (with `billingCurrency` added when amounts are in several billing currencies) */
  @ApiProperty({ type: [String], example: ['providerName'] })
  groupBy: string[];

  /** Every period (YYYYMM) or day (YYYY-MM-DD) of the range, in order, empty ones included */
  buckets: string[];

  /** Largest absolute total first; the `other` series last */
  series: CostSeriesDto[];

  /** The sum of every series per bucket */
  totals: number[];

  total: number;
}
