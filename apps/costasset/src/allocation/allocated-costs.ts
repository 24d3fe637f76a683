import { Injectable } from '@nestjs/common';
import type { PipelineStage } from 'mongoose';
import { compileFilter } from '../expressions';
import { dimensionRead, filterFields, rollupCanAnswer, tagKeysOf, tagRead } from '../rollups/rollup-fields';
import { CostView, RollupPlanner } from '../rollups/rollup-planner';
import { AllocationModel } from './allocation-model';
import { AllocationProblems } from './allocation.problems';
import { AllocationSettingsRepository } from './allocation.repositories';
import { mergeByReads, PieceRow } from './piece-rows';
import { compileSplits } from './split-rules';
import { CompiledSplit, CostPiece, runSplits, SplitOutcome } from './split-engine';

type Filter = Record<string, unknown>;

/** One period's allocation: the pieces of cost after every split, and what each split moved. */
export interface AllocatedPeriod {
  period: string;
  pieces: Array<CostPiece & { lineItems: number }>;
  outcomes: SplitOutcome[];
}

/**
 * Allocated cost (docs/allocation.md, "Shared costs"): per period, the tenant's cost as the rollups
 * hold it (or the line items while they are stale), cut by the fields the split sources and the
 * reader's filter need, then the splits in their order. `cost` only: one currency, the corporate one.
 */
@Injectable()
export class AllocatedCosts {
  constructor(
    private readonly settings: AllocationSettingsRepository,
    private readonly planner: RollupPlanner,
  ) {}

  async splits(tenantId: string, allocation: AllocationModel): Promise<CompiledSplit[]> {
    const settings = await this.settings.current(tenantId);
    return compileSplits(settings.splits ?? [], allocation);
  }

  /**
   * The periods' pieces after the splits; `filter` (the reader's expression and visibility) keeps
   * the pieces it matches, decided on what each piece holds: the fields it reads are carried by
   * every direct piece, and by a share when all its source pieces agree on them.
   */
  async periods(
    tenantId: string,
    periods: readonly string[],
    filter: Filter,
    extraFields: readonly string[] = [],
    view?: CostView,
  ): Promise<{ source: 'rollup' | 'line-items'; periods: AllocatedPeriod[] }> {
    const current = view ?? (await this.planner.view(tenantId));
    const splits = await this.splits(tenantId, current.allocation);
    const fields = new Set<string>(extraFields);
    for (const source of [filter, ...splits.map((split) => split.source)]) for (const field of filterFields(source)) fields.add(field);
    const plain = [...fields].filter(
      (field) => field !== 'tags' && !field.startsWith('tags[') && !field.startsWith('dimensions.') && field !== 'period',
    );
    if (!rollupCanAnswer(filter, plain, current.allocation)) throw AllocationProblems.filterNotAllocatable();
    const match = { period: { $in: [...periods] } };
    // the allocation fields the splits, the filter and the caller read: the rows must hold them
    // (one field's allocation rows when it is one, else the monthly rows that keep them all)
    const allocationReads = new Set<string>([...fields].filter((field) => field.startsWith('tags[') || field.startsWith('dimensions.')));
    for (const source of [filter, ...splits.map((split) => split.source)])
      for (const { group, key } of tagKeysOf(source) ?? []) allocationReads.add(tagRead(group, key));
    for (const { target } of splits)
      allocationReads.add('dimension' in target ? dimensionRead(target.dimension) : tagRead(target.tag.group, target.tag.key));
    const where = await this.planner.choose(tenantId, match, [...plain, 'period', 'cost', ...allocationReads], current);
    // over the line items, the groups keep their raw tags and the fields the rules read, and each
    // group's allocation is computed here (once per group, not per line item)
    const raw = where.source !== 'rollup';
    const grouped = new Set(plain);
    if (raw) for (const field of current.allocation.ruleFields()) grouped.add(field);
    const id: Record<string, unknown> = { period: '$period' };
    for (const field of grouped) id[field] = { $ifNull: [`$${field}`, null] };
    if (raw) id.tags = '$tags';
    else Object.assign(id, rolledUpAllocation(current.allocation, allocationReads));
    const rows = await this.planner.aggregate<PieceRow>(
      tenantId,
      where,
      [{ $match: match }, { $group: { _id: id, cost: { $sum: '$cost' }, lineItems: { $sum: raw ? 1 : '$lineItems' } } }] as PipelineStage[],
      current,
    );
    if (raw) for (const row of rows) Object.assign(row._id, current.allocation.classify(row._id));
    const merged = mergeByReads(rows, plain, allocationReads);
    const kept = compileFilter(filter);
    const allocated = periods.map((period) => {
      const direct = merged
        .filter((row) => row._id.period === period)
        .map((row) => ({ doc: row._id, amount: row.cost, lineItems: row.lineItems }));
      const { pieces, outcomes } = runSplits(direct, splits);
      const matching = pieces
        .map((piece) => ({ ...piece, lineItems: (piece as { lineItems?: number }).lineItems ?? 0 }))
        .filter((piece) => kept(piece.doc));
      return { period, pieces: matching, outcomes };
    });
    return { source: where.source, periods: allocated };
  }
}

/**
 * The allocation fields of rollup rows to group by: the dimensions as they are, and of the tags only
 * those of the keys read (`tags["<group>","<key>"]` in `reads`), so that rows differing in a tag
 * nothing reads make one group (fewer groups leave the database).
 */
function rolledUpAllocation(allocation: AllocationModel, reads: ReadonlySet<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const tagKeys = [...reads].filter((read) => read.startsWith('tags[')).map((read) => JSON.parse(read.slice('tags'.length)) as string[]);
  if (allocation.hasTagKeys && tagKeys.length > 0) {
    const readKey = tagKeys.map(([group, key]) => ({
      $and: [{ $eq: ['$$tag.group', { $literal: group }] }, { $eq: ['$$tag.key', { $literal: key }] }],
    }));
    fields.tags = { $filter: { input: { $ifNull: ['$tags', []] }, as: 'tag', cond: { $or: readKey } } };
  }
  if (allocation.dimensionNames.length > 0) fields.dimensions = '$dimensions';
  return fields;
}
