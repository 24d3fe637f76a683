import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsSafeText, RequiredNested } from '@lib/http';
import { ArrayMaxSize, ArrayUnique, IsArray, IsNumber, IsOptional, IsPositive, IsString, Matches, Max, Min } from 'class-validator';

export const PERIOD = /^\d{4}(0[1-9]|1[0-2])$/;

export class BudgetScope {
  /** An expression over the line-item fields (as in resource groups); no placeholders */
  @IsOptional()
  @IsSafeText(4096, { multiline: true })
  expr?: string;

  /** The `_id` of a `budgetary` resource group */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/)
  groupId?: string;
}

export class BudgetRequest {
  /**
   *
   * @example "AWS production"
   */
  @IsSafeText(200)
  name: string;

  /**
   * Budget per period (month), in `currency`
   * @example 10000
   */
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 4 })
  @IsPositive()
  @Max(1e13)
  amount: number;

  /**
   * ISO 4217; converted into the corporate currency with CURRENCY_EXCHANGE_RATES
   * @example "USD"
   */
  @Matches(/^[A-Z]{3}$/)
  currency: string;

  /** Exactly one of `expr` or `groupId` */
  @RequiredNested(() => BudgetScope)
  scope: BudgetScope;

  /**
   * YYYYMM
   * @example "202401"
   */
  @Matches(PERIOD, { message: 'startPeriod must be YYYYMM' })
  startPeriod: string;

  /**
   * YYYYMM, not before startPeriod
   * @example "202412"
   */
  @Matches(PERIOD, { message: 'endPeriod must be YYYYMM' })
  endPeriod: string;

  /** Percentages of the amount (1-1000) that raise `costasset.budget.threshold` once per period when crossed */
  @ApiProperty({ type: [Number], example: [50, 80, 100] })
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  @Min(1, { each: true })
  @Max(1000, { each: true })
  thresholds: number[];

  /**
   * Percentages of the amount (1-1000) that raise `costasset.budget.threshold` (kind `forecast`) once per period when the current
   * period's month-end forecast crosses them while its actual cost is still below; none when left out
   */
  @ApiPropertyOptional({ type: [Number], example: [100] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  @Min(1, { each: true })
  @Max(1000, { each: true })
  forecastThresholds?: number[];
}

export class BudgetResponse extends BudgetRequest {
  id: string;

  /** Percentages of the amount the current period's forecast may cross; `[]` when none */
  declare forecastThresholds: number[];
}

export class BudgetaryUnit {
  budgetId: string;

  name: string;

  /**
   *
   * @example "202410"
   */
  period: string;

  /** Budget amount for the period, in the corporate currency */
  amount: number;

  /** Actual cost of the period in the budget scope, in the corporate currency */
  actual: number;

  remaining: number;

  percentUsed: number;

  /** The budget's thresholds (percentages of the amount) */
  thresholds: number[];

  /** The thresholds the actual cost reached */
  thresholdsCrossed: number[];

  /** Whether the period is over, the current one (UTC) or to come: what `forecast` is */
  @ApiProperty({ enum: ['past', 'current', 'future'] })
  phase: 'past' | 'current' | 'future';

  /**
   * Cost at the end of the period, in the corporate currency: the actual for a past period; for the current one the actual plus the
   * forecast of its remaining days (from the daily costs of the scope, within the caller's visibility); for the next 3 periods the
   * model's forecast of the whole period. `null` beyond them, and when no day of the last 8 weeks has cost to forecast from
   */
  forecast: number | null;

  /** Lower end of the forecast's 80% prediction interval (the actual for a past period) */
  forecastLower: number | null;

  /** Upper end of the forecast's 80% prediction interval (the actual for a past period) */
  forecastUpper: number | null;

  /** `forecast` as a percentage of the amount */
  forecastPercentUsed: number | null;

  /** The budget's forecast thresholds (percentages of the amount) */
  forecastThresholds: number[];

  /** The forecast thresholds the forecast crosses; only the current period's (forecast thresholds concern the current period) */
  forecastThresholdsCrossed: number[];

  /** The corporate currency */
  currency: string;

  /** Where the actual cost was summed: the rollups or the raw line items (the same amount either way) */
  @ApiProperty({ enum: ['rollup', 'line-items'] })
  source: 'rollup' | 'line-items';
}
