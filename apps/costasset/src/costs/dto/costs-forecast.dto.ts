import { ApiProperty, PickType } from '@nestjs/swagger';
import { COST_METRICS, CostsQuery } from './costs.query';

/** The explorer's grouping, filter, metric and `top`; the range is the forecast's own (docs/cost-explorer.md, Forecasts). */
export class CostsForecastQuery extends PickType(CostsQuery, ['groupBy', 'filter', 'metric', 'top'] as const) {}

export class ForecastIntervalDto {
  /**
   * The month
   * @example "202606"
   */
  period: string;
  /** The cost of the month's days with data (the month of `asOf`; 0 for the months after it) */
  actual: number;
  /** actual + the predicted cost of the month's remaining days */
  forecast: number;
  /** Lower end of the 80% prediction interval */
  lower: number;
  /** Upper end of the 80% prediction interval */
  upper: number;
}

export class CostForecastSeriesDto {
  /** As in the explorer: the value of each grouping, `null` when the line items have none and in the `other` series */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string', nullable: true }, example: { providerName: 'aws' } })
  key: Record<string, string | null>;

  /** The sum of every series beyond `top`; always last */
  other?: boolean;

  /** The month of `asOf`: its actual to date plus the forecast of its remaining days */
  monthEnd: ForecastIntervalDto;

  /** The three months after it */
  @ApiProperty({ type: [ForecastIntervalDto] })
  nextMonths: ForecastIntervalDto[];
}

export class CostsForecastResponse {
  /** Where the daily costs came from; the answer is identical either way */
  @ApiProperty({ enum: ['line-items', 'rollup'] })
  source: 'line-items' | 'rollup';

  @ApiProperty({ enum: ['day', 'month'], nullable: true })
  rollupLevel: 'day' | 'month' | null;

  @ApiProperty({ enum: COST_METRICS })
  metric: (typeof COST_METRICS)[number];

  /** As in the explorer: the corporate currency for `cost`, the billing currency otherwise (null when split by it) */
  @ApiProperty({ type: String, nullable: true })
  currency: string | null;

  groupBy: string[];

  /**
   * The latest day with data (UTC) in the current month and the 56 days before it: the forecasts start the day after; null when none
   * @example "2026-06-20"
   */
  @ApiProperty({ type: String, nullable: true })
  asOf: string | null;

  /** Days of history the model is fitted on */
  windowDays: number;

  /** The probability each interval holds the month's actual cost (0.8) */
  intervalLevel: number;

  @ApiProperty({ type: [CostForecastSeriesDto] })
  series: CostForecastSeriesDto[];
}
