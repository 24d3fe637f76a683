import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal } from '@lib/auth';
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
  @ApiOperation({ summary: 'Enriched cost line items of the tenant, filtered by field, in pages (cursor)' })
  @ApiOkResponse({ type: CostLineItemPage })
  costLineItems(@CurrentPrincipal() principal: Principal, @Query() query: ListCostLineItemsQuery): Promise<CostLineItemPage> {
    return this.lineItems.costLineItems(principal, query);
  }

  @Get('assets')
  @AnyMember()
  @ApiOperation({ summary: 'Assets of the tenant, filtered by field, in pages (cursor)' })
  @ApiOkResponse({ type: AssetPage })
  assets(@CurrentPrincipal() principal: Principal, @Query() query: ListAssetsQuery): Promise<AssetPage> {
    return this.lineItems.assetItems(principal, query);
  }
}
