import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';

export class TagDto {
  @ApiProperty({
    type: String,
    description: 'A FOCUS tag key `group:key` or `group/key` splits at its first separator; a plain key has the group `default`',
  })
  group: string;
  @ApiProperty({ type: String }) key: string;
  @ApiProperty({ type: String }) value: string;
}

export class CostLineItemDto {
  @ApiProperty({ type: String }) id: string;
  @ApiProperty({ type: String }) providerName: string;
  @ApiProperty({ type: String }) billingAccountId: string;
  @ApiPropertyOptional({ type: String }) billingAccountName?: string;
  @ApiPropertyOptional({ type: String, description: 'The sub-account (SubAccountId)' }) assetAccountId?: string;
  @ApiPropertyOptional({ type: String }) resourceId?: string;
  @ApiPropertyOptional({ type: String, description: 'ResourceType as uploaded' }) assetType?: string;
  @ApiProperty({ type: String, description: 'Service category mapped from the asset type; `Uncategorized` when unmapped' })
  category: string;
  @ApiPropertyOptional({ type: String }) serviceName?: string;
  @ApiPropertyOptional({ type: String, description: 'RegionId as uploaded' }) region?: string;
  @ApiPropertyOptional({ type: String }) location?: string;
  @ApiPropertyOptional({ type: String }) country?: string;
  @ApiPropertyOptional({ type: String }) state?: string;
  @ApiPropertyOptional({ type: String }) subregion?: string;
  @ApiPropertyOptional({ type: String, description: 'The region of the location mapping' }) locationRegion?: string;
  @ApiPropertyOptional({ type: String }) dataCenter?: string;
  @ApiProperty({ type: String, example: '202410' }) period: string;
  @ApiProperty({ type: Number, description: 'BilledCost converted to the corporate currency' }) cost: number;
  @ApiProperty({ type: String, description: 'The corporate currency of `cost`' }) currency: string;
  @ApiProperty({ type: Number }) billedCost: number;
  @ApiProperty({ type: String }) billingCurrency: string;
  @ApiPropertyOptional({ type: Number }) effectiveCost?: number;
  @ApiProperty({ type: String, format: 'date-time' }) chargePeriodStart: string;
  @ApiProperty({ type: String, format: 'date-time' }) chargePeriodEnd: string;
  @ApiPropertyOptional({ type: String }) chargeCategory?: string;
  @ApiProperty({ type: [TagDto] }) tags: TagDto[];
  @ApiProperty({ type: String }) uploadRefId: string;
}

export class CostLineItemPage extends PageOf(CostLineItemDto) {}

export class AssetDto {
  @ApiProperty({ type: String }) id: string;
  @ApiProperty({ type: String }) resourceId: string;
  @ApiPropertyOptional({ type: String }) resourceName?: string;
  @ApiPropertyOptional({ type: String }) assetType?: string;
  @ApiProperty({ type: String }) category: string;
  @ApiPropertyOptional({ type: String }) region?: string;
  @ApiProperty({ type: String }) assetAccountId: string;
  @ApiProperty({ type: String }) billingAccountId: string;
  @ApiProperty({ type: String }) providerName: string;
  @ApiProperty({ type: String }) period: string;
  @ApiProperty({ type: [TagDto] }) tags: TagDto[];
  @ApiProperty({ type: String }) uploadRefId: string;
}

export class AssetPage extends PageOf(AssetDto) {}
