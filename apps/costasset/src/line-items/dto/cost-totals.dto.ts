import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional } from 'class-validator';
import type { CostSourceName, RollupLevel } from '../../rollups/rollup-planner';
import { ListCostLineItemsQuery } from './list-cost-line-items.query';

export const TOTALS_GROUP_FIELDS = [
  'providerName',
  'billingAccountId',
  'assetAccountId',
  'category',
  'serviceCategory',
  'serviceName',
  'region',
  'period',
  'billingPeriod',
  'invoiceId',
  'chargeCategory',
  'billingCurrency',
  'uploadRefId',
] as const;
export type TotalsGroupField = (typeof TOTALS_GROUP_FIELDS)[number];

/** The list filters (same fields, `expr`, visibility) and up to four fields to group by. */
export class CostTotalsQuery extends OmitType(ListCostLineItemsQuery, ['limit', 'cursor'] as const) {
  @ApiPropertyOptional({
    type: String,
    description: `Comma-separated fields to group by (at most 4) among ${TOTALS_GROUP_FIELDS.join(', ')}; one total over everything when absent`,
    example: 'providerName,category',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',').map((field) => field.trim()) : value))
  @IsArray()
  @ArrayMaxSize(4)
  @IsIn(TOTALS_GROUP_FIELDS, { each: true })
  groupBy?: TotalsGroupField[];
}

export class CostTotalDto {
  @ApiProperty({
    type: Object,
    description: 'The value of each groupBy field (null when absent on the rows)',
    example: { providerName: 'AWS' },
  })
  key: Record<string, string | null>;
  @ApiProperty({ type: Number }) lineItems: number;
  @ApiProperty({ type: Number, description: 'Sum of `cost` (corporate currency), unrounded' }) cost: number;
  @ApiProperty({ type: Number, description: 'Sum of BilledCost, unrounded (in billingCurrency: group by billingCurrency when several)' })
  billedCost: number;
  @ApiProperty({ type: Number, description: 'Sum of EffectiveCost, unrounded' }) effectiveCost: number;
  @ApiProperty({ type: Number, description: 'Sum of ListCost, unrounded' }) listCost: number;
  @ApiProperty({ type: Number, description: 'Sum of ContractedCost, unrounded' }) contractedCost: number;
}

export class CostTotalsDto {
  @ApiProperty({
    type: String,
    enum: ['rollup', 'line-items'],
    description:
      'Where the sums came from: the rollups when every filter and groupBy field is rolled up (and the tenant\'s rollups are current), else the line items. The figures are the same either way.',
  })
  source: CostSourceName;
  @ApiProperty({ type: String, enum: ['day', 'month'], nullable: true, description: 'The rollup level that answered; null from the line items' })
  rollupLevel: RollupLevel | null;
  @ApiProperty({ type: String, description: 'The corporate currency of `cost`; null when there are no rows', nullable: true }) currency:
    string | null;
  @ApiProperty({ type: [CostTotalDto], description: 'One entry per distinct key, sorted by key' }) groups: CostTotalDto[];
}
