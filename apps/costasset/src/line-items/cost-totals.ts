import type { PipelineStage } from 'mongoose';
import { answeredFrom, CostSource, CostSourceName, lineItemCount } from '../rollups/rollup-planner';
import type { CostTotalsDto } from './dto/cost-totals.dto';

/** The cost columns totals sum (all of them rolled up). */
export const TOTAL_AMOUNTS = ['cost', 'billedCost', 'effectiveCost', 'listCost', 'contractedCost'] as const;

/** Every line-item field a totals query reads besides its filter: what the planner is asked about. */
export const totalsReadFields = (groupBy: readonly string[]): string[] => [...groupBy, ...TOTAL_AMOUNTS, 'currency'];

export type TotalsRow = { _id: Record<string, string | null> | null; currency: string | null; lineItems: number } & Record<string, number>;

/**
 * One `$group` per distinct key over line items or rollup rows alike: rollup rows hold the same
 * fields (a missing one stays missing), their amounts are the database's unrounded sums and
 * `lineItems` their count, so both sources give the same groups and the same sums.
 */
export function costTotalsPipeline(match: Record<string, unknown>, groupBy: readonly string[], source: CostSourceName): PipelineStage[] {
  const sums = Object.fromEntries(TOTAL_AMOUNTS.map((field) => [field, { $sum: `$${field}` }]));
  return [
    { $match: match },
    {
      $group: {
        _id: groupBy.length ? Object.fromEntries(groupBy.map((field) => [field, `$${field}`])) : null,
        lineItems: { $sum: lineItemCount(source) },
        ...sums,
        currency: { $max: '$currency' },
      },
    },
    { $sort: { _id: 1 } },
  ] as PipelineStage[];
}

export function assembleTotals(rows: TotalsRow[], groupBy: readonly string[], where: CostSource): CostTotalsDto {
  return {
    source: answeredFrom(where),
    rollupLevel: where.rollupLevel,
    currency: rows.find((row) => row.currency)?.currency ?? null,
    groups: rows.map(({ _id, lineItems, cost, billedCost, effectiveCost, listCost, contractedCost }) => ({
      key: Object.fromEntries(groupBy.map((field) => [field, _id?.[field] ?? null])),
      lineItems,
      cost,
      billedCost,
      effectiveCost,
      listCost,
      contractedCost,
    })),
  };
}
