import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HeavyRoute } from '@lib/http';
import { AnyMember, CurrentPrincipal, Principal } from '@lib/auth';
import { CostTotalsDto, CostTotalsQuery } from './dto/cost-totals.dto';
import { AssetPage, CostLineItemPage } from './dto/line-item.response';
import { ListAssetsQuery } from './dto/list-assets.query';
import { ListCostLineItemsQuery } from './dto/list-cost-line-items.query';
import { LineItemsService } from './line-items.service';

@ApiTags('cost and assets')
@Controller('api/costasset/v1')
export class LineItemsController {
  constructor(private readonly lineItems: LineItemsService) {}

  @Get('costLineItems')
  @AnyMember()
  @HeavyRoute()
  @ApiOperation({ summary: 'Enriched cost line items of the tenant, filtered by field, in pages (cursor)' })
  @ApiOkResponse({ type: CostLineItemPage })
  costLineItems(@CurrentPrincipal() principal: Principal, @Query() query: ListCostLineItemsQuery): Promise<CostLineItemPage> {
    return this.lineItems.costLineItems(principal, query);
  }

  @Get('costLineItems/totals')
  @AnyMember()
  @HeavyRoute()
  @ApiOperation({
    summary: 'Unrounded sums of the cost columns, grouped by up to four fields, over the same selection as the list',
    description:
      'Same filters, `expr` and visibility as GET costLineItems. The database sums the stored ' +
      'amounts (never rounded per row or per group), so the figures reconcile with an export or ' +
      'an invoice. Answered from the rollups when every filter and groupBy field is rolled up, ' +
      'else from the line items, with the same figures; `source` says which (docs/rollups.md).',
  })
  @ApiOkResponse({ type: CostTotalsDto })
  costTotals(@CurrentPrincipal() principal: Principal, @Query() query: CostTotalsQuery): Promise<CostTotalsDto> {
    return this.lineItems.costTotals(principal, query);
  }

  @Get('assets')
  @AnyMember()
  @HeavyRoute()
  @ApiOperation({ summary: 'Assets of the tenant, filtered by field, in pages (cursor)' })
  @ApiOkResponse({ type: AssetPage })
  assets(@CurrentPrincipal() principal: Principal, @Query() query: ListAssetsQuery): Promise<AssetPage> {
    return this.lineItems.assetItems(principal, query);
  }
}
