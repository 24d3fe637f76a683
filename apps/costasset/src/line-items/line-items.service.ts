import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { DEFAULT_PAGE_SIZE } from '@lib/http';
import { combineFilters, compileExpression, ExpressionError, toProblem } from '../expressions';
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

function present<T extends { _id: unknown; tenantId?: string }>(doc: T) {
  const { _id, tenantId: _tenant, ...rest } = doc;
  return { id: String(_id), ...rest };
}

@Injectable()
export class LineItemsService {
  constructor(
    private readonly costs: CostLineItemRepository,
    private readonly assets: AssetRepository,
    private readonly scope: LineItemScope,
  ) {}

  async costLineItems(principal: Principal, query: ListCostLineItemsQuery): Promise<CostLineItemPage> {
    const filter = await this.filterOf(principal, query);
    const page = await this.costs.page(principal.tenantId, filter, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(present) as unknown as CostLineItemPage['items'], nextCursor: page.nextCursor };
  }

  /**
   * Sums of the cost columns per group, computed by the database over the same selection as the
   * list (fields, expression, visibility), never rounded: what reconciles with an invoice.
   */
  async costTotals(principal: Principal, query: CostTotalsQuery): Promise<CostTotalsDto> {
    const filter = await this.filterOf(principal, query);
    const fields = query.groupBy ?? [];
    const sum = (field: string) => ({ $sum: `$${field}` });
    const rows = await this.costs.aggregate<{ _id: Record<string, string | null> | null; currency: string | null; lineItems: number } & Record<string, number>>(
      principal.tenantId,
      [
        { $match: filter },
        {
          $group: {
            _id: fields.length ? Object.fromEntries(fields.map((field) => [field, `$${field}`])) : null,
            lineItems: { $sum: 1 },
            cost: sum('cost'),
            billedCost: sum('billedCost'),
            effectiveCost: sum('effectiveCost'),
            listCost: sum('listCost'),
            contractedCost: sum('contractedCost'),
            currency: { $max: '$currency' },
          },
        },
        { $sort: { _id: 1 } },
      ],
    );
    return {
      currency: rows.find((row) => row.currency)?.currency ?? null,
      groups: rows.map(({ _id, lineItems, cost, billedCost, effectiveCost, listCost, contractedCost }) => ({
        key: Object.fromEntries(fields.map((field) => [field, _id?.[field] ?? null])),
        lineItems,
        cost,
        billedCost,
        effectiveCost,
        listCost,
        contractedCost,
      })),
    };
  }

  /** Field filters AND the expression AND the caller's visibility: `$and`, so none can override another. */
  async filterOf(principal: Principal, query: ListCostLineItemsQuery | ListAssetsQuery | CostTotalsQuery): Promise<Record<string, unknown>> {
    return combineFilters(fieldFilter(query), expressionFilter(query.expr), await this.scope.filterFor(principal));
  }

  async assetItems(principal: Principal, query: ListAssetsQuery): Promise<AssetPage> {
    const filter = await this.filterOf(principal, query);
    const page = await this.assets.page(principal.tenantId, filter, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return { items: page.items.map(present) as unknown as AssetPage['items'], nextCursor: page.nextCursor };
  }
}
