import { Injectable } from '@nestjs/common';
import { csvRecord } from '@lib/csv';
import { CurrencyService } from '../currency/currency.service';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { dimensionRead, tagRead } from '../rollups/rollup-fields';
import { RollupPlanner } from '../rollups/rollup-planner';
import { AllocatedCosts } from './allocated-costs';
import { AllocationProblems } from './allocation.problems';
import { ShowbackLine, ShowbackQuery, ShowbackResponse } from './dto/allocation.dto';
import { AllocationTarget, targetValue } from './split-engine';
import { parseTarget } from './split-rules';

/**
 * The monthly showback statement (docs/allocation.md, "Showback"): per value of a dimension or an
 * activated tag, its direct cost (less what split rules took from it), the shared cost split rules
 * gave it, and their total; the unallocated value is always a line. As JSON, CSV or FOCUS-shaped CSV.
 */
@Injectable()
export class ShowbackService {
  constructor(
    private readonly allocated: AllocatedCosts,
    private readonly planner: RollupPlanner,
    private readonly currency: CurrencyService,
    private readonly lineItems: CostLineItemRepository,
  ) {}

  async statement(tenantId: string, query: ShowbackQuery): Promise<ShowbackResponse> {
    const target = parseTarget(query.dimension);
    const view = await this.planner.view(tenantId);
    if (
      !target ||
      ('dimension' in target
        ? !view.allocation.hasDimension(target.dimension)
        : !view.allocation.tagKeyActive(target.tag.group, target.tag.key))
    )
      throw AllocationProblems.notAllocationDimension(query.dimension);
    const period = query.period ?? (await this.latestPeriod(tenantId, view.exclusion));
    const [{ source, periods }, currencies] = await Promise.all([
      this.allocated.periods(
        tenantId,
        [period],
        {},
        ['dimension' in target ? dimensionRead(target.dimension) : tagRead(target.tag.group, target.tag.key)],
        view,
      ),
      this.currency.currencies(tenantId),
    ]);
    const [{ pieces, outcomes }] = periods;
    const unallocated =
      'dimension' in target ? view.allocation.definitions.dimensions.find((one) => one.name === target.dimension)!.defaultValue : null;
    const lines = new Map<string | null, ShowbackLine>([[unallocated, line(unallocated, true)]]);
    for (const piece of pieces) {
      const value = valueOf(piece.doc, target, unallocated);
      const entry = lines.get(value) ?? line(value, value === unallocated);
      if (piece.sharedBy) {
        entry.shared += piece.amount;
        const received = entry.received.find((one) => one.rule === piece.sharedBy);
        if (received) received.amount += piece.amount;
        else entry.received.push({ rule: piece.sharedBy, amount: piece.amount });
      } else entry.direct += piece.amount;
      lines.set(value, entry);
    }
    const sorted = [...lines.values()].map((entry) => ({ ...entry, total: entry.direct + entry.shared }));
    sorted.sort(
      (a, b) => Number(a.unallocated) - Number(b.unallocated) || b.total - a.total || String(a.value).localeCompare(String(b.value)),
    );
    return {
      period,
      dimension: query.dimension,
      currency: currencies.defaultCurrency,
      lines: sorted,
      splits: outcomes,
      total: sorted.reduce((sum, entry) => sum + entry.total, 0),
      source,
    };
  }

  private async latestPeriod(tenantId: string, exclusion: Record<string, unknown>): Promise<string> {
    const [latest] = await this.lineItems.find(tenantId, exclusion, { sort: { period: -1 }, limit: 1 }, { period: 1 });
    return latest?.period ?? new Date().toISOString().slice(0, 7).replace('-', '');
  }
}

function line(value: string | null, unallocated: boolean): ShowbackLine {
  return { value, unallocated, direct: 0, shared: 0, received: [], total: 0 };
}

function valueOf(doc: Parameters<typeof targetValue>[0], target: AllocationTarget, unallocated: string | null): string | null {
  return targetValue(doc, target) ?? unallocated;
}

/** The statement as CSV: `period,dimension,value,direct_cost,shared_cost,total_cost,currency`. */
export function* showbackCsv(statement: ShowbackResponse): Generator<string> {
  yield csvRecord(['period', 'dimension', 'value', 'direct_cost', 'shared_cost', 'total_cost', 'currency'], 'spreadsheet');
  for (const entry of statement.lines)
    yield csvRecord(
      [statement.period, statement.dimension, entry.value ?? '', entry.direct, entry.shared, entry.total, statement.currency],
      'spreadsheet',
    );
}

/**
 * The statement in FOCUS column names: one row per value and kind of cost (direct, or shared by
 * one split rule), `EffectiveCost` in the corporate currency, the allocation in `x_` columns.
 */
export function* showbackFocusCsv(statement: ShowbackResponse): Generator<string> {
  const start = `${statement.period.slice(0, 4)}-${statement.period.slice(4)}-01T00:00:00Z`;
  const next = new Date(Date.UTC(Number(statement.period.slice(0, 4)), Number(statement.period.slice(4)), 1))
    .toISOString()
    .replace('.000Z', 'Z');
  yield csvRecord(
    [
      'BillingPeriodStart',
      'BillingPeriodEnd',
      'BillingCurrency',
      'EffectiveCost',
      'x_AllocationDimension',
      'x_AllocationValue',
      'x_AllocationKind',
      'x_AllocationSplitRule',
    ],
    'spreadsheet',
  );
  for (const entry of statement.lines) {
    const value = entry.value ?? '';
    yield csvRecord([start, next, statement.currency, entry.direct, statement.dimension, value, 'direct', ''], 'spreadsheet');
    for (const received of entry.received)
      yield csvRecord(
        [start, next, statement.currency, received.amount, statement.dimension, value, 'shared', received.rule],
        'spreadsheet',
      );
  }
}
