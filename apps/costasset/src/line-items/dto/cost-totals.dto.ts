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
  /**
   *
   * @example "providerName,category"
   */
  @ApiPropertyOptional({
    type: String,
    description:
      `Comma-separated fields to group by (at most 4) among ${TOTALS_GROUP_FIELDS.join(', ')}; ` + 'one total over everything when absent',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',').map((field) => field.trim()) : value))
  @IsArray()
  @ArrayMaxSize(4)
  @IsIn(TOTALS_GROUP_FIELDS, { each: true })
  groupBy?: TotalsGroupField[];
}

export class CostTotalDto {
  /** The value of each groupBy field (null when absent on the rows) */
  @ApiProperty({ type: Object, example: { providerName: 'AWS' } })
  key: Record<string, string | null>;
  lineItems: number;
  /** Sum of `cost` (corporate currency), unrounded */
  cost: number;
  /** Sum of BilledCost, unrounded (in billingCurrency: group by billingCurrency when several) */
  billedCost: number;
  /** Sum of EffectiveCost, unrounded */
  effectiveCost: number;
  /** Sum of ListCost, unrounded */
  listCost: number;
  /** Sum of ContractedCost, unrounded */
  contractedCost: number;
}

export class CostTotalsDto {
  /**
   * Where the sums came from: the rollups when every filter and groupBy field is rolled up (and the tenant's rollups are current), else the
   * line items. The figures are the same either way.
   */
  @ApiProperty({ enum: ['rollup', 'line-items'] })
  source: CostSourceName;
  /** The rollup level that answered; null from the line items */
  @ApiProperty({ enum: ['day', 'month'], nullable: true })
  rollupLevel: RollupLevel | null;
  /** The corporate currency of `cost`; null when there are no rows */
  @ApiProperty({ type: String, nullable: true }) currency: string | null;
  /** One entry per distinct key, sorted by key */
  groups: CostTotalDto[];
}
