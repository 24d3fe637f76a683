import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COST_GRANULARITIES, COST_METRICS } from './costs.query';

export class CostSeriesDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    description: 'The value of each grouping (tags as `tag:<group>:<key>`); `null` when the line items have none, and in the `other` series',
    example: { providerName: 'aws' },
  })
  key: Record<string, string | null>;

  @ApiPropertyOptional({ type: Boolean, description: 'The sum of every series beyond `top`; always last' })
  other?: boolean;

  @ApiProperty({ type: Number, description: 'Sum of `values`, not rounded' })
  total: number;

  @ApiProperty({ type: [Number], description: 'One amount per bucket, aligned with `buckets`, not rounded' })
  values: number[];

  @ApiProperty({ type: Number, description: 'How many line items the series sums' })
  lineItems: number;
}

export class CostsResponse {
  @ApiProperty({ enum: ['line-items', 'rollup'], description: 'Where the answer came from; the answer is identical either way' })
  source: 'line-items' | 'rollup';

  @ApiProperty({
    enum: ['day', 'month'],
    nullable: true,
    type: String,
    description: 'Which rollups answered: the monthly ones unless the query reads days (a day range or daily buckets); null from the line items',
  })
  rollupLevel: 'day' | 'month' | null;

  @ApiProperty({ enum: COST_METRICS })
  metric: (typeof COST_METRICS)[number];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The corporate currency for `cost`; the billing currency otherwise, or `null` when the rows hold several (then `billingCurrency` is part of each key)',
    example: 'USD',
  })
  currency: string | null;

  @ApiProperty({ enum: COST_GRANULARITIES })
  granularity: (typeof COST_GRANULARITIES)[number];

  @ApiProperty({ type: String, example: '202401' })
  from: string;

  @ApiProperty({ type: String, example: '202406' })
  to: string;

  @ApiProperty({ type: [String], description: 'The groupings of each key, in order (with `billingCurrency` added when amounts are in several billing currencies)', example: ['providerName'] })
  groupBy: string[];

  @ApiProperty({ type: [String], description: 'Every period (YYYYMM) or day (YYYY-MM-DD) of the range, in order, empty ones included' })
  buckets: string[];

  @ApiProperty({ type: [CostSeriesDto], description: 'Largest absolute total first; the `other` series last' })
  series: CostSeriesDto[];

  @ApiProperty({ type: [Number], description: 'The sum of every series per bucket' })
  totals: number[];

  @ApiProperty({ type: Number })
  total: number;
}
