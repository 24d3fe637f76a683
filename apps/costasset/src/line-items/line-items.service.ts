import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { DEFAULT_PAGE_SIZE } from '@lib/http';
import { combineFilters, compileExpression, ExpressionError, toProblem } from '../expressions';
import { RollupPlanner } from '../rollups/rollup-planner';
import { assembleTotals, costTotalsPipeline, totalsReadFields, TotalsRow } from './cost-totals';
import { CostTotalsDto, CostTotalsQuery } from './dto/cost-totals.dto';
import { AssetPage, CostLineItemPage } from './dto/line-item.response';
import { ListAssetsQuery } from './dto/list-assets.query';
import { ListCostLineItemsQuery } from './dto/list-cost-line-items.query';
import { AssetRepository, CostLineItemRepository } from './line-items.repository';
import { LineItemScope } from './line-items.scope';

function fieldFilter(query: object): Record<string, unknown> {
  const { limit: _limit, cursor: _cursor, expr: _expr, groupBy: _groupBy, format: _format, ...fields } = query as Record<string, unknown>;
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function expressionFilter(expr: string | undefined): Record<string, unknown> | null {
  if (!expr) return null;
  try {
    return compileExpression(expr) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ExpressionError) throw toProblem(error);
    throw error;
  }
}

/** A stored row as the API shows it: its id, without the tenant and the import's own bookkeeping (`uploadPart`). */
function present<T extends { _id: unknown; tenantId?: string; uploadPart?: number }>(doc: T) {
  const { _id, tenantId: _tenant, uploadPart: _part, ...rest } = doc;
  return { id: String(_id), ...rest };
}

@Injectable()
export class LineItemsService {
  constructor(
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly scope: LineItemScope,
    private readonly planner: RollupPlanner,
  ) {}

  async costLineItems(principal: Principal, query: ListCostLineItemsQuery): Promise<CostLineItemPage> {
    const filter = await this.costFilterOf(principal, query);
    const page = await this.costs.page(principal.tenantId, filter, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(present) as unknown as CostLineItemPage['items'], nextCursor: page.nextCursor };
  }

  /**
   * Sums of the cost columns per group over the same selection as the list (fields, expression,
   * visibility), never rounded: what reconciles with an invoice. From the rollups when the planner
   * says they can answer (every filter and grouping a rolled-up field), else from the line items.
   */
  async costTotals(principal: Principal, query: CostTotalsQuery): Promise<CostTotalsDto> {
    const [filter, view] = await Promise.all([this.filterOf(principal, query), this.planner.view(principal.tenantId)]);
    const groupBy = query.groupBy ?? [];
    const where = await this.planner.choose(principal.tenantId, filter, totalsReadFields(groupBy), view);
    const pipeline = costTotalsPipeline(filter, groupBy, where.source);
    const rows = await this.planner.aggregate<TotalsRow>(principal.tenantId, where, pipeline, view);
    return assembleTotals(rows, groupBy, where);
  }

  /** Field filters AND the expression AND the caller's visibility: `$and`, so none can override another. */
  async filterOf(
    principal: Principal,
    query: ListCostLineItemsQuery | ListAssetsQuery | CostTotalsQuery,
  ): Promise<Record<string, unknown>> {
    return combineFilters(fieldFilter(query), expressionFilter(query.expr), await this.scope.filterFor(principal));
  }

  /**
   * `filterOf` over cost line items as readers see them: without the rows the import view hides
   * (imports still running, rows replaced by a published import): the list and the FOCUS export.
   */
  async costFilterOf(principal: Principal, query: Parameters<LineItemsService['filterOf']>[1]): Promise<Record<string, unknown>> {
    return this.planner.lineItemFilter(principal.tenantId, await this.filterOf(principal, query));
  }

  async assetItems(principal: Principal, query: ListAssetsQuery): Promise<AssetPage> {
    const filter = await this.planner.expandDimensions(principal.tenantId, await this.filterOf(principal, query));
    const page = await this.assets.page(principal.tenantId, filter, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(present) as unknown as AssetPage['items'], nextCursor: page.nextCursor };
  }
}
