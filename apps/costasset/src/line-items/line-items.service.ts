import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { AssetPage, CostLineItemPage } from './dto/line-item.response';
import { ListAssetsQuery } from './dto/list-assets.query';
import { ListCostLineItemsQuery } from './dto/list-cost-line-items.query';
import { AssetRepository, CostLineItemRepository } from './line-items.repository';
import { LineItemScope } from './line-items.scope';

const DEFAULT_LIMIT = 100;

function fieldFilter(query: object): Record<string, unknown> {
  const { limit: _limit, cursor: _cursor, ...fields } = query as Record<string, unknown>;
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
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
    const filter = { ...fieldFilter(query), ...(await this.scope.filterFor(principal)) };
    const page = await this.costs.page(principal.tenantId, filter, query.limit ?? DEFAULT_LIMIT, query.cursor);
    return { items: page.items.map(present) as unknown as CostLineItemPage['items'], nextCursor: page.nextCursor };
  }

  async assetItems(principal: Principal, query: ListAssetsQuery): Promise<AssetPage> {
    const filter = { ...fieldFilter(query), ...(await this.scope.filterFor(principal)) };
    const page = await this.assets.page(principal.tenantId, filter, query.limit ?? DEFAULT_LIMIT, query.cursor);
    return { items: page.items.map(present) as unknown as AssetPage['items'], nextCursor: page.nextCursor };
  }
}
