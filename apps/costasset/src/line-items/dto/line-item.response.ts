import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';

export class TagDto {
  @ApiProperty({
    type: String,
    description: 'A FOCUS tag key `group:key` or `group/key` splits at its first separator; a plain key has the group `default`',
  })
  group: string;
  @ApiProperty({ type: String }) key: string;
  @ApiProperty({ type: String, description: 'Always a string (`true` for a key without a value, with `type: boolean`)' }) value: string;
  @ApiPropertyOptional({ type: String, description: 'The original key, when it was split into group and key' }) name?: string;
  @ApiPropertyOptional({ type: String, enum: ['boolean', 'number', 'null'], description: 'The JSON type of the value when not a string' })
  type?: 'boolean' | 'number' | 'null';
}

export class CustomColumnDto {
  @ApiProperty({ type: String, description: 'The `x_` column name as the file wrote it', example: 'x_CostCenter' }) name: string;
  @ApiProperty({ type: String }) value: string;
}

const money = (description: string) => ({ type: Number, description: `${description} (as given: never rounded)` });
const focus = (column: string, extra = '') => ({ type: String, description: `FOCUS ${column}${extra}` });

/**
 * A cost line item as the API returns it: every stored field (absent ones are left out). Amounts
 * are in `billingCurrency` except `cost` (corporate currency) and the PricingCurrency* ones.
 */
export class CostLineItemDto {
  @ApiProperty({ type: String }) id: string;
  @ApiProperty({ type: String, description: 'The GPD or FOCUS upload the row came from' }) uploadRefId: string;
  @ApiPropertyOptional({
    type: String,
    description: 'File inside the upload (GPD: path in the zip, or the raw file of an extension flow; FOCUS: part name)',
  })
  sourceFile?: string;
  @ApiPropertyOptional({ type: Number, description: 'Line in that file (CSV, the header is line 1) or 1-based row (Parquet)' })
  sourceRow?: number;
  @ApiPropertyOptional({ type: String, description: 'The row `Id` of the export, when it has one' }) sourceId?: string;
  @ApiPropertyOptional({ type: String, example: '1.2', description: 'FOCUS version of the file the row came from' }) focusVersion?: string;
  @ApiProperty({ type: String, description: 'FOCUS ProviderName (ServiceProviderName from 1.3); the provider of a GPD file' })
  providerName: string;
  @ApiPropertyOptional(focus('PublisherName')) publisherName?: string;
  @ApiPropertyOptional(focus('ServiceProviderName', ' (1.3)')) serviceProviderName?: string;
  @ApiPropertyOptional(focus('HostProviderName', ' (1.3)')) hostProviderName?: string;
  @ApiPropertyOptional(focus('InvoiceIssuerName')) invoiceIssuerName?: string;
  @ApiProperty({ type: String, description: 'Opaque: any characters (resource paths, ARNs, spaces, Unicode)' }) billingAccountId: string;
  @ApiProperty({ type: String }) billingAccountName: string;
  @ApiPropertyOptional(focus('BillingAccountType', ' (1.2)')) billingAccountType?: string;
  @ApiPropertyOptional({ type: String, description: 'The sub-account (SubAccountId)' }) assetAccountId?: string;
  @ApiPropertyOptional({ type: String, description: 'SubAccountName' }) assetAccountName?: string;
  @ApiPropertyOptional(focus('SubAccountType', ' (1.2)')) subAccountType?: string;
  @ApiPropertyOptional({ type: String }) resourceId?: string;
  @ApiPropertyOptional({ type: String }) resourceName?: string;
  @ApiPropertyOptional({ type: String, description: 'ResourceType as uploaded' }) assetType?: string;
  @ApiProperty({
    type: String,
    description:
      'Service category: the provider metadata mapping of the asset type (or service name), else FOCUS ServiceCategory, else `Uncategorized`',
  })
  category: string;
  @ApiPropertyOptional(focus('ServiceCategory', ' as uploaded')) serviceCategory?: string;
  @ApiPropertyOptional(focus('ServiceSubcategory', ' (1.1)')) serviceSubcategory?: string;
  @ApiPropertyOptional({ type: String }) serviceName?: string;
  @ApiPropertyOptional({ type: String, description: 'RegionId as uploaded' }) region?: string;
  @ApiPropertyOptional(focus('RegionName')) regionName?: string;
  @ApiPropertyOptional(focus('AvailabilityZone')) availabilityZone?: string;
  @ApiPropertyOptional({ type: String }) location?: string;
  @ApiPropertyOptional({ type: String }) country?: string;
  @ApiPropertyOptional({ type: String }) state?: string;
  @ApiPropertyOptional({ type: String }) subregion?: string;
  @ApiPropertyOptional({ type: String, description: 'The region of the location mapping' }) locationRegion?: string;
  @ApiPropertyOptional({ type: String }) dataCenter?: string;
  @ApiProperty({ type: String, example: '202410', description: 'Month of ChargePeriodStart (UTC)' }) period: string;
  @ApiProperty({
    type: String,
    example: '202411',
    description: 'Month of BillingPeriodStart (UTC); the charge month when the file has none',
  })
  billingPeriod: string;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) billingPeriodStart?: string;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) billingPeriodEnd?: string;
  @ApiProperty(money('BilledCost converted to the corporate currency')) cost: number;
  @ApiProperty({ type: String, description: 'The corporate currency of `cost`' }) currency: string;
  @ApiProperty(money('FOCUS BilledCost')) billedCost: number;
  @ApiProperty({ type: String }) billingCurrency: string;
  @ApiPropertyOptional(money('FOCUS EffectiveCost')) effectiveCost?: number;
  @ApiPropertyOptional(money('FOCUS ListCost')) listCost?: number;
  @ApiPropertyOptional(money('FOCUS ContractedCost')) contractedCost?: number;
  @ApiPropertyOptional(money('FOCUS ListUnitPrice')) listUnitPrice?: number;
  @ApiPropertyOptional(money('FOCUS ContractedUnitPrice')) contractedUnitPrice?: number;
  @ApiPropertyOptional({ type: Number }) pricingQuantity?: number;
  @ApiPropertyOptional({ type: String }) pricingUnit?: string;
  @ApiPropertyOptional(focus('PricingCategory')) pricingCategory?: string;
  @ApiPropertyOptional({ type: Number, description: 'FOCUS ConsumedQuantity' }) consumedQuantity?: number;
  @ApiPropertyOptional(focus('ConsumedUnit')) consumedUnit?: string;
  @ApiPropertyOptional(focus('PricingCurrency', ' (1.2)')) pricingCurrency?: string;
  @ApiPropertyOptional(money('FOCUS PricingCurrencyContractedUnitPrice')) pricingCurrencyContractedUnitPrice?: number;
  @ApiPropertyOptional(money('FOCUS PricingCurrencyEffectiveCost')) pricingCurrencyEffectiveCost?: number;
  @ApiPropertyOptional(money('FOCUS PricingCurrencyListUnitPrice')) pricingCurrencyListUnitPrice?: number;
  @ApiProperty({ type: String, format: 'date-time' }) chargePeriodStart: string;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) chargePeriodEnd?: string;
  @ApiPropertyOptional(focus('ChargeCategory', ': Usage, Purchase, Tax, Credit, Adjustment')) chargeCategory?: string;
  @ApiPropertyOptional(focus('ChargeClass', ': Correction')) chargeClass?: string;
  @ApiPropertyOptional(focus('ChargeDescription')) chargeDescription?: string;
  @ApiPropertyOptional(focus('ChargeFrequency')) chargeFrequency?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountId')) commitmentDiscountId?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountName')) commitmentDiscountName?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountCategory')) commitmentDiscountCategory?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountType')) commitmentDiscountType?: string;
  @ApiPropertyOptional(focus('CommitmentDiscountStatus')) commitmentDiscountStatus?: string;
  @ApiPropertyOptional({ type: Number, description: 'FOCUS CommitmentDiscountQuantity (1.1)' }) commitmentDiscountQuantity?: number;
  @ApiPropertyOptional(focus('CommitmentDiscountUnit', ' (1.1)')) commitmentDiscountUnit?: string;
  @ApiPropertyOptional(focus('CapacityReservationId', ' (1.1)')) capacityReservationId?: string;
  @ApiPropertyOptional(focus('CapacityReservationStatus', ' (1.1)')) capacityReservationStatus?: string;
  @ApiPropertyOptional(focus('InvoiceId', ' (1.2)')) invoiceId?: string;
  @ApiPropertyOptional(focus('SkuId')) skuId?: string;
  @ApiPropertyOptional(focus('SkuPriceId')) skuPriceId?: string;
  @ApiPropertyOptional(focus('SkuMeter', ' (1.1)')) skuMeter?: string;
  @ApiPropertyOptional(focus('SkuPriceDetails', ' (1.1): JSON text')) skuPriceDetails?: string;
  @ApiPropertyOptional(focus('AllocatedMethodId', ' (1.3)')) allocatedMethodId?: string;
  @ApiPropertyOptional(focus('AllocatedMethodDetails', ' (1.3): JSON text')) allocatedMethodDetails?: string;
  @ApiPropertyOptional(focus('AllocatedResourceId', ' (1.3)')) allocatedResourceId?: string;
  @ApiPropertyOptional(focus('AllocatedResourceName', ' (1.3)')) allocatedResourceName?: string;
  @ApiPropertyOptional(focus('AllocatedTags', ' (1.3): JSON text')) allocatedTags?: string;
  @ApiPropertyOptional(focus('ContractApplied', ' (1.3): JSON text')) contractApplied?: string;
  @ApiProperty({ type: [TagDto] }) tags: TagDto[];
  @ApiPropertyOptional({ type: [CustomColumnDto], description: 'The `x_` custom columns of the file, as given' })
  customColumns?: CustomColumnDto[];
}

export class CostLineItemPage extends PageOf(CostLineItemDto) {}

export class AssetDto {
  @ApiProperty({ type: String }) id: string;
  @ApiProperty({ type: String }) resourceId: string;
  @ApiPropertyOptional({ type: String }) resourceName?: string;
  @ApiPropertyOptional({ type: String }) assetType?: string;
  @ApiProperty({ type: String }) category: string;
  @ApiPropertyOptional({ type: String }) region?: string;
  @ApiPropertyOptional({ type: String }) location?: string;
  @ApiPropertyOptional({ type: String }) country?: string;
  @ApiPropertyOptional({ type: String }) state?: string;
  @ApiPropertyOptional({ type: String }) subregion?: string;
  @ApiPropertyOptional({ type: String }) locationRegion?: string;
  @ApiPropertyOptional({ type: String }) dataCenter?: string;
  @ApiProperty({ type: String }) assetAccountId: string;
  @ApiProperty({ type: String }) billingAccountId: string;
  @ApiProperty({ type: String }) providerName: string;
  @ApiProperty({ type: String }) period: string;
  @ApiProperty({ type: [TagDto] }) tags: TagDto[];
  @ApiProperty({ type: String }) uploadRefId: string;
}

export class AssetPage extends PageOf(AssetDto) {}
