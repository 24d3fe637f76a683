import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsSafeText, RequiredNested } from '@lib/http';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';

export const PERIOD = /^\d{4}(0[1-9]|1[0-2])$/;

export class BudgetScope {
  @ApiPropertyOptional({ description: 'An expression over the line-item fields (as in resource groups); no placeholders' })
  @IsOptional()
  @IsSafeText(4096, { multiline: true })
  expr?: string;

  @ApiPropertyOptional({ description: 'The `_id` of a `budgetary` resource group' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/)
  groupId?: string;
}

export class BudgetRequest {
  @ApiProperty({ example: 'AWS production' })
  @IsSafeText(200)
  name: string;

  @ApiProperty({ description: 'Budget per period (month), in `currency`', example: 10000 })
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 4 })
  @IsPositive()
  @Max(1e13)
  amount: number;

  @ApiProperty({ description: 'ISO 4217; converted into the corporate currency with CURRENCY_EXCHANGE_RATES', example: 'USD' })
  @Matches(/^[A-Z]{3}$/)
  currency: string;

  @ApiProperty({ type: BudgetScope, description: 'Exactly one of `expr` or `groupId`' })
  @RequiredNested(() => BudgetScope)
  scope: BudgetScope;

  @ApiProperty({ example: '202401', description: 'YYYYMM' })
  @Matches(PERIOD, { message: 'startPeriod must be YYYYMM' })
  startPeriod: string;

  @ApiProperty({ example: '202412', description: 'YYYYMM, not before startPeriod' })
  @Matches(PERIOD, { message: 'endPeriod must be YYYYMM' })
  endPeriod: string;

  @ApiProperty({ type: [Number], example: [50, 80, 100], description: 'Percentages of the amount (1-1000) that raise `costasset.budget.threshold` once per period when crossed' })
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  @Min(1, { each: true })
  @Max(1000, { each: true })
  thresholds: number[];
}

export class BudgetResponse extends BudgetRequest {
  @ApiProperty()
  id: string;
}

export class BudgetaryUnit {
  @ApiProperty()
  budgetId: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ example: '202410' })
  period: string;

  @ApiProperty({ description: 'Budget amount for the period, in the corporate currency' })
  amount: number;

  @ApiProperty({ description: 'Actual cost of the period in the budget scope, in the corporate currency' })
  actual: number;

  @ApiProperty()
  remaining: number;

  @ApiProperty()
  percentUsed: number;

  @ApiProperty({ type: [Number] })
  thresholdsCrossed: number[];

  @ApiProperty({ description: 'The corporate currency' })
  currency: string;

  @ApiProperty({
    enum: ['rollup', 'line-items'],
    description: 'Where the actual cost was summed: the rollups or the raw line items (the same amount either way)',
  })
  source: 'rollup' | 'line-items';
}
